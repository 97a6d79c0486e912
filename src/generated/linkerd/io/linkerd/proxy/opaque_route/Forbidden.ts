// Original file: proto/linkerd/opaque_route.proto


export interface Forbidden {
}

export interface Forbidden__Output {
}
