/**
 * A validator for the subset of JSON Schema (draft 2020-12) that the shipped schemas use:
 * `$ref` (to `#/$defs/...` and to other registered schemas by `$id`), `type`, `const`, `enum`,
 * `properties`, `required`, `additionalProperties`, `items`, `minimum`, `maximum`,
 * `exclusiveMinimum`, `exclusiveMaximum` and `pattern`. Any other keyword is an error, so a schema
 * never silently asks for more than is checked.
 */

/** A JSON Schema object (the subset above, plus annotations). */
export type JsonSchema = { [keyword: string]: unknown }

/** One place where a value breaks its schema. */
export interface SchemaViolation {
  /** JSON Pointer of the value (`/benches/0/result/counts/total`). */
  path: string
  message: string
}

const ANNOTATIONS = new Set(['$schema', '$id', '$defs', 'title', 'description', '$comment', 'examples', 'default'])
const KEYWORDS = new Set([
  '$ref',
  'type',
  'const',
  'enum',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'pattern',
])

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function typeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value)
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    default:
      return typeOf(value) === type
  }
}

function equalJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

function pointerSegment(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1')
}

/** Validates against a root schema, resolving `$ref`s within it and to the other registered schemas. */
export class JsonSchemaValidator {
  readonly #schemas = new Map<string, JsonSchema>()

  /** @param schemas every schema a `$ref` may name, each with an absolute `$id`. */
  constructor(schemas: readonly JsonSchema[]) {
    for (const schema of schemas) {
      if (typeof schema.$id !== 'string') throw new Error('JsonSchemaValidator: every schema needs an absolute $id')
      this.#schemas.set(schema.$id, schema)
    }
  }

  /** The violations of `value` against the schema registered as `id` (empty when valid). */
  validate(id: string, value: unknown): SchemaViolation[] {
    const root = this.#schemas.get(id)
    if (!root) throw new Error(`JsonSchemaValidator: no schema with $id ${id}`)
    const violations: SchemaViolation[] = []
    this.#check(root, root, value, '', violations)
    return violations
  }

  #resolve(ref: string, root: JsonSchema): { schema: JsonSchema; root: JsonSchema } {
    const [base = '', fragment = ''] = ref.split('#')
    let target = root
    if (base !== '') {
      const url = new URL(base, typeof root.$id === 'string' ? root.$id : undefined).href
      const found = this.#schemas.get(url)
      if (!found) throw new Error(`JsonSchemaValidator: unknown $ref ${ref} (resolved to ${url})`)
      target = found
    }
    let node: unknown = target
    for (const segment of fragment.split('/').filter(Boolean)) {
      node = isObject(node) ? node[segment.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined
    }
    if (!isObject(node)) throw new Error(`JsonSchemaValidator: $ref ${ref} names nothing`)
    return { schema: node, root: target }
  }

  #check(schema: JsonSchema, root: JsonSchema, value: unknown, path: string, out: SchemaViolation[]): void {
    const fail = (message: string): void => {
      out.push({ path: path || '/', message })
    }
    for (const keyword of Object.keys(schema)) {
      if (!KEYWORDS.has(keyword) && !ANNOTATIONS.has(keyword))
        throw new Error(`JsonSchemaValidator: unsupported keyword ${keyword} at ${path || '/'}`)
    }
    if (typeof schema.$ref === 'string') {
      const target = this.#resolve(schema.$ref, root)
      this.#check(target.schema, target.root, value, path, out)
    }
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string]
      if (!types.some((type) => matchesType(value, type))) {
        fail(`must be ${types.join(' or ')}, found ${typeOf(value)}${typeof value === 'number' ? ` ${value}` : ''}`)
        return
      }
    }
    if ('const' in schema && !equalJson(schema.const, value))
      fail(`must be ${JSON.stringify(schema.const)}, found ${JSON.stringify(value)}`)
    if (Array.isArray(schema.enum) && !schema.enum.some((option) => equalJson(option, value))) {
      fail(
        `must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(', ')}, found ${JSON.stringify(value)}`,
      )
    }
    if (typeof value === 'number') {
      if (typeof schema.minimum === 'number' && value < schema.minimum)
        fail(`must be >= ${schema.minimum}, found ${value}`)
      if (typeof schema.maximum === 'number' && value > schema.maximum)
        fail(`must be <= ${schema.maximum}, found ${value}`)
      if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
        fail(`must be > ${schema.exclusiveMinimum}, found ${value}`)
      if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
        fail(`must be < ${schema.exclusiveMaximum}, found ${value}`)
    }
    if (
      typeof value === 'string' &&
      typeof schema.pattern === 'string' &&
      !new RegExp(schema.pattern, 'u').test(value)
    ) {
      fail(`must match ${schema.pattern}`)
    }
    if (Array.isArray(value) && isObject(schema.items)) {
      const items = schema.items
      value.forEach((item, index) => this.#check(items, root, item, `${path}/${index}`, out))
    }
    if (isObject(value)) {
      for (const key of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
        if (!(key in value) || value[key] === undefined) fail(`must have property ${key}`)
      }
      const properties = isObject(schema.properties) ? schema.properties : {}
      for (const [key, child] of Object.entries(value)) {
        if (child === undefined) continue
        const childPath = `${path}/${pointerSegment(key)}`
        const propertySchema = properties[key]
        if (isObject(propertySchema)) this.#check(propertySchema, root, child, childPath, out)
        else if (schema.additionalProperties === false)
          out.push({ path: childPath, message: 'is not allowed (additionalProperties: false)' })
        else if (isObject(schema.additionalProperties))
          this.#check(schema.additionalProperties, root, child, childPath, out)
      }
    }
  }
}
