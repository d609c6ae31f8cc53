export type {
  CampaignNext,
  CampaignOutcome,
  CampaignProfile,
  CampaignProgress,
  CampaignRun,
} from './campaign-driver.ts'
export { runCampaign } from './campaign-driver.ts'
export type { PairStep, PairsReading } from './pairs-profile.ts'
export { pairsProfile } from './pairs-profile.ts'
export { duetOrder, sliceRunPlan, unsliceable } from './duet-slices.ts'
