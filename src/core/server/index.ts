export { command, connect, llamaCpp, sglang, vllm, type PresetOptions } from './presets.ts'
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_LOG_DIR,
  DEFAULT_START_TIMEOUT_MS,
  DEFAULT_STOP_GRACE_MS,
  PORT_PLACEHOLDER,
  type ConnectSpec,
  type LaunchSpec,
  type ServerSpec,
} from './server-spec.ts'
export { normalizeBaseUrl, serverKey } from './server-key.ts'
export { startServer, withServer, type LaunchInfo, type RunningServer, type StartServerOptions } from './start-server.ts'
export { ServerPool, type ServerPoolOptions } from './server-pool.ts'
export { getServerFacts, prefixCacheResetUnsupported, resetPrefixCache, type ServerFacts, type ServerFactsOptions } from './server-facts.ts'
export { redactArgs, redactEnv, redactText, secretValues } from './redact.ts'
export { waitForServerReady, type ReadinessOptions, type ReadinessOutcome } from '../client/readiness.ts'
export { getFreePort, isPortFree } from './free-port.ts'
export { stopTrackedServers, trackedServerCount } from './shutdown-hooks.ts'
export { ServerLog } from './server-log.ts'
export { compareLlamaTimings, llamaTimingPairs, type LlamaTimingPair, type LlamaTimingsComparison } from './llama-timings.ts'
