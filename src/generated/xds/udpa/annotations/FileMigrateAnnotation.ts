// Original file: @grpc/grpc-js-xds/deps/xds/udpa/annotations/migrate.proto


export interface FileMigrateAnnotation {
  'move_to_package'?: (string);
}

export interface FileMigrateAnnotation__Output {
  'move_to_package': (string);
}
