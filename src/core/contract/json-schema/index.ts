export { BENCHMARK_RESULT_SCHEMA, BENCHMARK_RESULT_SCHEMA_ID, REPORT_SCHEMA, REPORT_SCHEMA_ID } from './schemas.ts'
export { JsonSchemaValidator } from './validate-json-schema.ts'
