// The mistake to catch: bench files without the plugin (under Vitest 4 they would not run).
import { defineConfig } from 'vitest/config'

export default defineConfig({})
