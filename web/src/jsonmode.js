// JSON mode: the answer parsed, pretty-printed and checked against the schema the request
// sent (crux constrained the tokens; the page checks the result on its own).
import { Validator } from '@cfworker/json-schema';

// {json: bool, pretty, valid: bool|null, errors: [text]}: valid is null without a schema.
export function checkAnswer(text, schemaText) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { json: false, pretty: text, valid: false, errors: [`not JSON: ${e.message}`] };
  }
  const pretty = JSON.stringify(value, null, 2);
  if (!schemaText?.trim()) {
    const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
    return { json: true, pretty, valid: isObject, errors: isObject ? [] : ['not a JSON object'] };
  }
  let schema;
  try {
    schema = JSON.parse(schemaText);
  } catch (e) {
    return { json: true, pretty, valid: false, errors: [`the schema is not JSON: ${e.message}`] };
  }
  const result = new Validator(schema, '2020-12', false).validate(value);
  const errors = result.errors
    .filter((e) => e.keyword !== 'properties' && e.keyword !== 'items' && e.keyword !== 'allOf')
    .map((e) => `${e.instanceLocation}: ${e.error}`);
  return { json: true, pretty, valid: result.valid, errors: result.valid ? [] : errors.slice(0, 5) };
}
