/* global module */
// The import graph's rules (DEVELOPERS.md, "Layout"), checked in CI by `npm run check:imports`.
// Tiers, lowest first: core/contract and core/platform; the engine's folders (load, client, metrics,
// workload, telemetry, then server, workers, trials, then baseline, verdict, slo, history); core's run.ts and
// the plan (plan/); sweep and scenario; the simulator; bench/ (the runner-neutral harness); reporters;
// the runner adapters (vitest, bun, deno); the CLI and the root entry. An arrow may only point down.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circles, type-only imports included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-stays-below',
      severity: 'error',
      comment: 'The core knows no simulator, harness, reporter, runner adapter or CLI, and no Vitest.',
      from: { path: '^src/core/' },
      to: {
        path: [
          '^src/(sim|bench|vitest|bun|deno|cli)/',
          '^src/(index|cli)\\.ts$',
          '^reporters/',
          '^node_modules/(vitest|@vitest|vite)/',
        ],
      },
    },
    {
      name: 'contract-and-platform-are-the-floor',
      severity: 'error',
      comment: 'The published types and the runtime basics import nothing else of the package.',
      from: { path: '^src/core/(contract|platform)/' },
      to: { path: '^src/', pathNot: '^src/core/(contract|platform)/' },
    },
    {
      name: 'engine-leaves-stand-alone',
      severity: 'error',
      comment: 'load knows neither client nor metrics; client, metrics, workload and telemetry know only the floor.',
      from: { path: '^src/core/(load|client|metrics|workload|telemetry)/' },
      to: { path: '^src/core/', pathNot: ['^src/core/(contract|platform)/', '^src/core/$1/'] },
    },
    {
      name: 'engine-below-run',
      severity: 'error',
      comment: 'Below run.ts and the plan nothing imports them, sweeps, scenarios or campaigns.',
      from: {
        path: '^src/core/(load|client|metrics|workload|telemetry|server|sessions|workers|trials|baseline|slo|history)/',
      },
      to: { path: ['^src/core/(run|index)\\.ts$', '^src/core/(plan|sweep|scenario|campaign)/'] },
    },
    {
      name: 'server-below-judging',
      severity: 'error',
      comment: 'Launching and scraping a server does not know baselines, SLOs, trials or workers.',
      from: { path: '^src/core/server/' },
      to: { path: '^src/core/(baseline|slo|trials|workers)/' },
    },
    {
      name: 'verdict-judges-numbers',
      severity: 'error',
      comment:
        'The verdict (the paired verdict, the downgrade rules of bench and sweep verdicts) judges figures and result ' +
        'fields it is given: no telemetry, server, trials, load or run imports, and no baseline storage (DESIGN.md).',
      from: { path: '^src/core/verdict/' },
      to: {
        path: [
          '^src/core/(telemetry|server|load|client|workers|trials|sweep|scenario|plan|slo|history)/',
          '^src/core/(run|index)\\.ts$',
          '^src/core/baseline/(index|baseline-store|baseline-file|baseline-path|baseline-environment)\\.ts$',
          '^src/core/baseline/(node-baseline-environment|machine-entries|update-mode)\\.ts$',
        ],
      },
    },
    {
      name: 'storage-never-judges',
      severity: 'error',
      comment:
        'baseline/ stores entries and reads them back; the comparison, its statistics, policy and wording are the ' +
        "verdict's (core/verdict/), which reads storage, never the other way round.",
      from: { path: '^src/core/baseline/' },
      to: { path: '^src/core/verdict/' },
    },
    {
      name: 'sweep-below-scenario',
      severity: 'error',
      from: { path: '^src/core/sweep/' },
      to: { path: '^src/core/scenario/' },
    },
    {
      name: 'simulator-knows-no-client',
      severity: 'error',
      comment: 'The simulator is a server: no client, load, harness, reporter, adapter or CLI.',
      from: { path: '^src/sim/' },
      to: {
        path: [
          '^src/core/(client|load|workers|plan|run\\.ts)',
          '^src/(bench|vitest|bun|deno|cli)/',
          '^src/(index|cli)\\.ts$',
          '^reporters/',
        ],
      },
    },
    {
      name: 'harness-is-runner-neutral',
      severity: 'error',
      comment: 'bench/ is shared by the Vitest, Bun and Deno adapters: no runner, no reporter, no Vitest.',
      from: { path: '^src/bench/' },
      to: {
        path: [
          '^src/(vitest|bun|deno|cli)/',
          '^src/(index|cli)\\.ts$',
          '^reporters/',
          '^node_modules/(vitest|@vitest|vite)/',
        ],
      },
    },
    {
      name: 'reporters-read-results',
      severity: 'error',
      comment: 'Reporters read typed results; they never import a runner adapter or the CLI.',
      from: { path: '^reporters/' },
      to: { path: ['^src/(vitest|bun|deno|cli)/', '^src/(index|cli)\\.ts$'] },
    },
    {
      name: 'adapters-apart',
      severity: 'error',
      comment: 'Each runner adapter stands on bench/ and core, never on another adapter.',
      from: { path: '^src/(vitest|bun|deno)/' },
      to: { path: '^src/(vitest|bun|deno)/', pathNot: '^src/$1/' },
    },
    {
      name: 'tests-never-import-perf',
      severity: 'error',
      comment: 'perf/ prints numbers; tests assert. A helper both need lives in test/helpers or src.',
      from: { path: '^test/' },
      to: { path: '^perf/' },
    },
    {
      name: 'package-never-imports-tests-or-tools',
      severity: 'error',
      from: { path: '^(src|reporters)/' },
      to: { path: '^(test|perf|scripts|benches|examples)/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
  },
}
