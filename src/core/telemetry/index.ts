export { startGpuSampler, type GpuSampler, type GpuSamplerOptions, type GpuSamplerStopOptions } from './gpu-sampler.ts'
export {
  computeGpuStats,
  integrateEnergyJ,
  type GpuIdentity,
  type GpuStatsExtras,
  type TimeWindow,
} from './gpu-stats.ts'
export { parseGpuSelection, selectGpus, type GpuSelection, type GpuSelector } from './gpu-selection.ts'
export { queryGpuInventory, type GpuInventory, type GpuInventoryOptions } from './gpu-inventory.ts'
export { collectEnvironment, type CollectEnvironmentOptions } from './environment.ts'
export { collectHostInfo, resetHostInfoCache, type HostInfoOptions } from './host-info.ts'
export { toolVersion } from './tool-version.ts'
export {
  INVENTORY_FIELDS,
  parseCsvRow,
  parseCudaVersion,
  parseInventoryRow,
  parseSampleRow,
  SAMPLE_FIELDS,
  type NvidiaSmiInventoryRow,
  type NvidiaSmiSampleRow,
} from './nvidia-smi-csv.ts'
export {
  classifyNvidiaSmiFailure,
  NVIDIA_SMI_ENV,
  resolveNvidiaSmi,
  runNvidiaSmi,
  type NvidiaSmiFailure,
  type NvidiaSmiOptions,
  type NvidiaSmiOutcome,
  type NvidiaSmiUnavailableReason,
} from './nvidia-smi.ts'
export { LineBuffer } from './line-buffer.ts'
export { startHostLoad, type HostLoad, type HostLoadWatch } from './host-load.ts'
export { selfCheckOf } from './self-check.ts'
export { machineSpeedChange } from '../contract/machine-speed.ts'
export { calibrateCpu } from './cpu-calibration.ts'
export { busyMachineNotice } from './busy-machine.ts'
export { listenerOf, processGroupOf } from './port-owner.ts'
export { hostLoadOptionsFor } from './run-host-load.ts'
