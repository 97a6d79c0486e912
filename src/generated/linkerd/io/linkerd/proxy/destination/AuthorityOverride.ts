// Original file: proto/linkerd/destination.proto


export interface AuthorityOverride {
  'authority_override'?: (string);
}

export interface AuthorityOverride__Output {
  'authority_override': (string);
}
