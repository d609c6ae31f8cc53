"""A peer client for the perf suite, built the way vLLM's benchmark client is.

vLLM's `vllm bench serve` (vllm/benchmarks/lib/endpoint_request_func.py,
async_request_openai_chat_completions) streams each request over one shared aiohttp
ClientSession (TCPConnector limited to the concurrency, keep-alive), iterates the response
line by line, strips `data: `, json.loads every event, takes time.perf_counter() per event and
appends each inter-token gap to a list. This file does the same, closed loop at a fixed
concurrency, and reports events per second and CPU per event over the window from the first
completed request to the last (the client's steady state, as the Node side measures it).

Usage: python3 aiohttp_client.py URL CONCURRENCY REQUESTS MAX_TOKENS WARMUP
Prints one JSON object on stdout.
"""

import asyncio
import json
import sys
import time

import aiohttp

AIOHTTP_TIMEOUT = aiohttp.ClientTimeout(total=6 * 60 * 60)


class RequestOutput:
    __slots__ = ("success", "ttft", "itl", "latency", "output_tokens", "generated_text", "error")

    def __init__(self):
        self.success = False
        self.ttft = 0.0
        self.itl = []
        self.latency = 0.0
        self.output_tokens = 0
        self.generated_text = ""
        self.error = ""


async def request_chat(session, url, model, prompt, max_tokens):
    """One streamed chat completion, as vLLM's async_request_openai_chat_completions."""
    payload = {
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": max_tokens,
        "ignore_eos": True,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    headers = {"Content-Type": "application/json"}
    output = RequestOutput()
    generated_text = ""
    ttft = 0.0
    st = time.perf_counter()
    most_recent_timestamp = st
    events = 0
    try:
        async with session.post(url=url, json=payload, headers=headers) as response:
            if response.status == 200:
                async for chunk_bytes in response.content:
                    chunk_bytes = chunk_bytes.strip()
                    if not chunk_bytes:
                        continue
                    chunk = chunk_bytes.decode("utf-8").removeprefix("data: ")
                    if chunk != "[DONE]":
                        timestamp = time.perf_counter()
                        data = json.loads(chunk)
                        if choices := data.get("choices"):
                            content = choices[0]["delta"].get("content")
                            if ttft == 0.0:
                                ttft = timestamp - st
                                output.ttft = ttft
                            else:
                                output.itl.append(timestamp - most_recent_timestamp)
                            if content:
                                events += 1
                            generated_text += content or ""
                        elif usage := data.get("usage"):
                            output.output_tokens = usage.get("completion_tokens")
                        most_recent_timestamp = timestamp
                output.generated_text = generated_text
                output.success = True
                output.latency = most_recent_timestamp - st
            else:
                output.error = response.reason or ""
    except Exception as error:  # noqa: BLE001 - a failed request is counted, as vLLM does
        output.error = str(error)
    return output, events


async def main():
    root = sys.argv[1].rstrip("/")
    url = root + "/v1/chat/completions"
    concurrency = int(sys.argv[2])
    requests = int(sys.argv[3])
    max_tokens = int(sys.argv[4])
    warmup = int(sys.argv[5])

    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=concurrency, keepalive_timeout=60, force_close=False)
    async with aiohttp.ClientSession(connector=connector, timeout=AIOHTTP_TIMEOUT, trust_env=True) as session:
        async with session.get(root + "/v1/models") as response:
            model = (await response.json())["data"][0]["id"]
        semaphore = asyncio.Semaphore(concurrency)

        async def limited(i, sink):
            async with semaphore:
                result = await request_chat(session, url, model, f"peer request {i}", max_tokens)
            sink(result)

        await asyncio.gather(*(limited(-i - 1, lambda r: None) for i in range(warmup)))

        state = {"done": 0, "events": 0, "first": None, "last": None, "failed": 0}
        outputs = []

        def on_done(result):
            output, events = result
            outputs.append(output)
            state["done"] += 1
            state["events"] += events
            if not output.success:
                state["failed"] += 1
            sample = (time.perf_counter(), time.process_time(), state["events"])
            if state["first"] is None:
                state["first"] = sample
            state["last"] = sample

        await asyncio.gather(*(limited(i, on_done) for i in range(requests)))

    first, last = state["first"], state["last"]
    events = last[2] - first[2]
    seconds = last[0] - first[0]
    cpu_s = last[1] - first[1]
    print(
        json.dumps(
            {
                "python": sys.version.split()[0],
                "aiohttp": aiohttp.__version__,
                "completed": state["done"] - state["failed"],
                "failed": state["failed"],
                "events": events,
                "seconds": seconds,
                "cpuSeconds": cpu_s,
                "eventsPerSec": events / seconds if seconds > 0 else 0,
                "cpuUsPerEvent": cpu_s * 1e6 / events if events > 0 else 0,
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
