import { Ajv2020 } from 'ajv/dist/2020.js'
import type { ValidateFunction } from 'ajv'
import type { ResolvedResponseFormat } from './workload-options.ts'
import type { StructuredOutputCheck } from './request-record.ts'

/**
 * JSON Schema (draft 2020-12) of a reply format, compiled by Ajv: the schemas servers take for
 * structured output use `minLength`, `anyOf`, `prefixItems`, `format` and more than the subset the
 * result schemas need. Formats are not checked, as servers' grammars do not hold them either.
 */
export function compileReplySchema(schema: Record<string, unknown>): {
  validate?: ValidateFunction
  problem?: string
} {
  try {
    const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false })
    const { $schema: _dialect, ...rest } = schema
    return { validate: ajv.compile(rest) }
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) }
  }
}

/** Checks a reply's text against a reply format: `valid`, `not-json` or `schema-mismatch`. */
export type ReplyCheck = (text: string) => StructuredOutputCheck

/** The check of one reply format, its schema compiled once. */
export function replyCheckOf(format: ResolvedResponseFormat): ReplyCheck {
  const validate = format.type === 'json_schema' ? compileReplySchema(format.schema).validate : undefined
  return (text) => {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      return 'not-json'
    }
    if (format.type === 'json_object')
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? 'valid' : 'not-json'
    return validate === undefined || validate(value) ? 'valid' : 'schema-mismatch'
  }
}
