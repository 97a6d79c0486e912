// Original file: @grpc/grpc-js-xds/deps/xds/udpa/annotations/versioning.proto


export interface VersioningAnnotation {
  'previous_message_type'?: (string);
}

export interface VersioningAnnotation__Output {
  'previous_message_type': (string);
}
