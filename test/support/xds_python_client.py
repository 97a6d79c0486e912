# A gRPC C-core xDS client (Debian's python3-grpcio) driven over stdin: each line "call <path> <n>"
# makes n unary calls on xds:///<target> and prints one JSON line [{backend} | {code}, ...].
# The bootstrap comes from GRPC_XDS_BOOTSTRAP_CONFIG, as for any gRPC xDS client.
import json
import sys

import grpc

target = sys.argv[1]
channel = grpc.insecure_channel(target)
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    if parts[0] == "quit":
        break
    path, n = parts[1], int(parts[2])
    call = channel.unary_unary(path, request_serializer=lambda x: x, response_deserializer=lambda x: x)
    out = []
    for _ in range(n):
        try:
            res = call(b"{}", timeout=5)
            out.append({"backend": json.loads(res)["backend"]})
        except grpc.RpcError as e:
            out.append({"code": e.code().name, "details": e.details()})
    print(json.dumps(out), flush=True)
channel.close()
