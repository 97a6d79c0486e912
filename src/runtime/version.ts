// What this build is: served at /version and as the build_info metric.
export const VERSION = '0.1.0';
/** the Gateway API release whose schemas and conformance corpus this build follows */
export const GATEWAY_API_VERSION = 'v1.6.1';
