import { test } from 'vitest'
import { detectRuntime } from '../../src/core/runtime.ts'
test('x', () => { console.log('RUNTIME', JSON.stringify(detectRuntime()), process.execPath) })
