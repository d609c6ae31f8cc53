/** The `LLM_BENCH_*` variables a user may set, and what each does, for the general help (one line each). */
export const ENVIRONMENT_VARIABLES: ReadonlyArray<readonly [name: string, what: string]> = [
  [
    'LLM_BENCH_BASELINE_DIR',
    'folder of the baseline files (Bun, Deno, merge); default __llm_baselines__ beside each file',
  ],
  ['LLM_BENCH_UPDATE', '1: rewrite baselines under bun test or deno test (vitest bench -u elsewhere)'],
  [
    'LLM_BENCH_ADD_SESSION',
    '1: count each judged run that did not fail, on a quiet machine, as one more session of its stored baseline',
  ],
  ['LLM_BENCH_FORCE_BASELINE', '1: record a run measured on a disturbed machine as a trusted baseline'],
  ['LLM_BENCH_STRICT_GATES', '1: refuse, at collection, a gate the bench set that cannot decide'],
  ['LLM_BENCH_NVIDIA_SMI', 'path of nvidia-smi when it is not on PATH'],
  ['LLM_BENCH_HTTP_TRANSPORT', 'fetch: send with fetch instead of undici (to compare the two)'],
  ['LLM_BENCH_SEGMENT', 'i/N: this host runs segment i of N of a split load (docs/distributed.md)'],
  ['LLM_BENCH_SEGMENTS', 'N segments, with a Kubernetes Indexed Job (JOB_COMPLETION_INDEX)'],
  ['LLM_BENCH_START_AT', 'shared start of a split load, epoch milliseconds, the same on every host'],
  ['LLM_BENCH_SEGMENT_DIR', 'folder a segmented bench writes its results to; default llm-bench-segments/'],
  ['LLM_BENCH_SETSID', '1: start launched servers in their process group without perl'],
]
