// Checks a payload against the shipped JSON Schemas (schemas/*.json, staged beside the page): the keywords
// those schemas use, no more. tests/alerts/test_web.py fails when a schema uses a keyword not listed here.
"use strict";

const SCHEMA_KEYWORDS = ["$schema", "$id", "$ref", "title", "description", "type", "properties", "required",
                         "additionalProperties", "propertyNames", "items", "maxItems", "const", "enum", "pattern",
                         "minLength", "minimum", "maximum", "format"];

function jsonType(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;  // string, boolean, object
}

function hasType(value, type) {
  const actual = jsonType(value);
  return actual === type || (type === "number" && actual === "integer");
}

// The first thing wrong with `value` under `schema` ("/seats: expected array"), or null when it conforms.
// `registry` maps a schema's $id to the schema, for $ref.
function schemaError(schema, value, registry, path = "") {
  const at = path || "the payload";
  if (schema.$ref !== undefined) {
    if (!registry[schema.$ref]) return `${at}: unknown schema ${schema.$ref}`;
    return schemaError(registry[schema.$ref], value, registry, path);
  }
  if (schema.type !== undefined) {
    const types = [].concat(schema.type);
    if (!types.some((t) => hasType(value, t))) return `${at}: expected ${types.join(" or ")}`;
  }
  if ("const" in schema && value !== schema.const) return `${at}: expected ${JSON.stringify(schema.const)}`;
  if (schema.enum !== undefined && !schema.enum.includes(value)) return `${at}: not one of ${JSON.stringify(schema.enum)}`;
  if (typeof value === "string") {
    if (schema.minLength !== undefined && value.length < schema.minLength) return `${at}: too short`;
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(value)) return `${at}: does not match ${schema.pattern}`;
    if (schema.format === "date-time" && Number.isNaN(Date.parse(value))) return `${at}: not a date-time`;
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) return `${at}: below ${schema.minimum}`;
    if (schema.maximum !== undefined && value > schema.maximum) return `${at}: above ${schema.maximum}`;
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return `${at}: more than ${schema.maxItems} items`;
    if (schema.items !== undefined) {
      for (let i = 0; i < value.length; i += 1) {
        const error = schemaError(schema.items, value[i], registry, `${path}/${i}`);
        if (error) return error;
      }
    }
  } else if (jsonType(value) === "object") {
    for (const key of schema.required || []) {
      if (!Object.hasOwn(value, key)) return `${at}: ${key} is missing`;
    }
    for (const [key, item] of Object.entries(value)) {
      if (schema.propertyNames !== undefined) {
        const error = schemaError(schema.propertyNames, key, registry, `${path}/${key}`);
        if (error) return error;
      }
      const sub = schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key]
                                                                              : schema.additionalProperties;
      if (sub === false) return `${at}: unexpected ${key}`;
      if (sub !== undefined && sub !== true) {
        const error = schemaError(sub, item, registry, `${path}/${key}`);
        if (error) return error;
      }
    }
  }
  return null;
}
