// The MeshSnapshot body (openapi/schemas/mesh.yaml) around a table's JSON: made by the worker that
// wrote the version and by an API that read it from the store, byte for byte the same.
export function meshSnapshotBody(namespace: string, version: number, hash: string, tableJson: string): string {
  return `{"namespace":${JSON.stringify(namespace)},"version":${version},"hash":${JSON.stringify(hash)},"table":${tableJson}}`;
}
