"""GPU load for scripts/gpu/sampler-check.ts: holds a known amount of GPU memory and keeps the GPU busy.

python3 scripts/gpu/torch-load.py --gib 20 --seconds 8 [--idle-after 2]

Allocates --gib GiB with torch (plain cudaMalloc through the caching allocator), runs bf16 matrix
products for --seconds, sleeps --idle-after seconds still holding the memory, then frees it and
prints one JSON line: {"allocatedMiB": ..., "busySeconds": ..., "products": ...}.
"""
import argparse
import json
import time

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--gib", type=float, default=20)
parser.add_argument("--seconds", type=float, default=8)
parser.add_argument("--idle-after", type=float, default=0)
args = parser.parse_args()

dev = torch.device("cuda")
hold = torch.empty(int(args.gib * 1024**3), dtype=torch.uint8, device=dev)
hold.fill_(1)
a = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
b = torch.randn(8192, 8192, dtype=torch.bfloat16, device=dev)
torch.cuda.synchronize()
allocated = torch.cuda.memory_allocated() / 1024**2
start = time.monotonic()
products = 0
while time.monotonic() - start < args.seconds:
    for _ in range(20):
        a @ b
    torch.cuda.synchronize()
    products += 20
busy = time.monotonic() - start
if args.idle_after > 0:
    time.sleep(args.idle_after)
del hold, a, b
torch.cuda.empty_cache()
print(json.dumps({"allocatedMiB": round(allocated), "busySeconds": round(busy, 3), "products": products}), flush=True)
