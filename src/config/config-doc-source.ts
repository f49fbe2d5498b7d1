/**
 * docs/configuration.md, written from the config schema (`npm run generate`; a test fails when the
 * committed file is stale): every field of tiergate.config.json with its type, default and meaning,
 * read from the JSON Schema the zod definition gives, so the document says what validation does.
 */
import { z } from 'zod';
import { configSchema } from './schema.ts';

/** Where the document is committed, from the repository's root. */
export const CONFIGURATION_DOC_PATH = 'docs/configuration.md';

/** The part of JSON Schema the config's schema uses. */
interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly default?: unknown;
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly format?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly minItems?: number;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: JsonSchema | boolean;
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
}

/** One field of the file. */
export interface ConfigField {
  /** Dotted, `[]` for an array's elements: `orgs[].keys.primary`. */
  readonly path: string;
  /** `duration` for a length of time: "300ms", "3s", "1m" or ms. */
  readonly type: string;
  readonly required: boolean;
  readonly default: string;
  /** The alternatives of unions the field belongs to, outermost first: `revocation.hook.type` `"http"`. */
  readonly when: readonly string[];
  readonly meaning: string;
}

const json = (value: unknown) => `\`${JSON.stringify(value)}\``;

/**
 * A key by reference, `{"env": "NAME"}`. Its schema also admits a string, only so that a key written
 * into the file is refused with a hint: the document shows the reference alone.
 */
function isEnvReference(node: JsonSchema): boolean {
  const names = Object.keys(node.properties ?? {});
  return node.type === 'object' && names.length === 1 && names[0] === 'env';
}

function numberType(node: JsonSchema): string {
  const bounds = [
    node.exclusiveMinimum === undefined ? null : `more than ${node.exclusiveMinimum}`,
    node.minimum === undefined ? null : `at least ${node.minimum}`,
    node.maximum === undefined ? null : `at most ${node.maximum.toLocaleString('en-US')}`,
  ].filter((b) => b !== null);
  return [node.type ?? 'number', ...bounds].join(', ');
}

const DURATION = 'duration';

/** The types a value may have: a union's, or a list of primitive types (`["string", "number"]`: a duration). */
function unionType(alternatives: readonly JsonSchema[]): string {
  if (alternatives.some(isEnvReference)) return '`{"env": "NAME"}`';
  const types = new Set(alternatives.map((a) => a.type));
  if (types.size === 2 && types.has('string') && types.has('number')) return DURATION;
  return alternatives.map(typeOf).join(' or ');
}

function typeOf(node: JsonSchema): string {
  if (node.const !== undefined) return json(node.const);
  if (node.enum) return node.enum.map(json).join(' or ');
  if (node.anyOf) return unionType(node.anyOf);
  if (Array.isArray(node.type)) return unionType(node.type.map((type: string) => ({ type })));
  if (node.oneOf) return 'object, by its `type`';
  if (node.type === 'integer' || node.type === 'number') return numberType(node);
  if (node.type === 'array') {
    const least = node.minItems ? `, at least ${node.minItems}` : '';
    return `array of ${node.items ? typeOf(node.items) : 'values'}${least}`;
  }
  if (node.type === 'string' && node.format === 'uri') return 'URL';
  if (node.type === 'object' && !node.properties && typeof node.additionalProperties === 'object') {
    const values = node.additionalProperties.type === undefined ? 'any' : typeOf(node.additionalProperties);
    return `object of ${values} values`;
  }
  return typeof node.type === 'string' ? node.type : 'any value';
}

/** Where a walk stands: the field's path, whether its parent requires it, the union alternative it is in. */
interface Place {
  readonly path: string;
  readonly required: boolean;
  readonly when: readonly string[];
}

/** The fields of `node` and below it, the node itself first where it is a field (not an array's element). */
function fieldsOf(node: JsonSchema, place: Place, isElement = false): ConfigField[] {
  const own: ConfigField[] =
    isElement && !node.description
      ? []
      : [
          {
            path: place.path,
            type: typeOf(node),
            required: place.required,
            default: node.default === undefined ? '' : json(node.default),
            when: place.when,
            meaning: node.description ?? '',
          },
        ];
  return [...own, ...childFieldsOf(node, place)];
}

function childFieldsOf(node: JsonSchema, place: Place): ConfigField[] {
  if (node.anyOf?.some(isEnvReference)) return [];
  if (node.properties) {
    const properties = Object.entries(node.properties);
    return properties.flatMap(([name, child]) =>
      fieldsOf(child, {
        path: place.path === '' ? name : `${place.path}.${name}`,
        required: node.required?.includes(name) ?? false,
        when: place.when,
      }),
    );
  }
  if (node.type === 'array' && node.items) {
    return fieldsOf(node.items, { ...place, path: `${place.path}[]`, required: false }, true);
  }
  if (node.oneOf) return node.oneOf.flatMap((alternative) => alternativeFieldsOf(alternative, place));
  // A value written either short or as an object (`headers`: "ietf" or {"dialect": ...}): the object's fields.
  if (node.anyOf)
    return node.anyOf.flatMap((alternative) => (alternative.properties ? childFieldsOf(alternative, place) : []));
  return [];
}

/** The fields of one alternative of a union told apart by `type`, each marked with that alternative. */
function alternativeFieldsOf(alternative: JsonSchema, place: Place): ConfigField[] {
  const when = `\`${place.path}.type\` ${json(alternative.properties?.type?.const)}`;
  return childFieldsOf(alternative, { ...place, when: [...place.when, when] });
}

/** Every field of tiergate.config.json, in the schema's order. */
export function configFields(): ConfigField[] {
  const schema = z.toJSONSchema(configSchema, { target: 'draft-2020-12', io: 'input' }) as JsonSchema;
  return childFieldsOf(schema, { path: '', required: true, when: [] });
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A table of fields; `outer` alternatives are the table's own, the rest are said in the row. */
function fieldTable(fields: readonly ConfigField[], outer: number): string[] {
  const rows = fields.map((f) => {
    const inner = f.when.slice(outer);
    const meaning = inner.length === 0 ? f.meaning : `(where ${inner.join(', ')}) ${f.meaning}`;
    return `| \`${f.path}\` | ${cell(f.type)} | ${f.required ? 'yes' : ''} | ${f.default} | ${cell(meaning)} |`;
  });
  return ['| field | type | required | default | meaning |', '|---|---|---|---|---|', ...rows];
}

/** A top-level field's section: its table, then a table per alternative of a union under it. */
function fieldSection(top: ConfigField, fields: readonly ConfigField[]): string[] {
  const under = fields.filter((f) => f.path.startsWith(top.path) && /^([.[]|$)/.test(f.path.slice(top.path.length)));
  const alternatives = [...new Set(under.flatMap((f) => f.when.slice(0, 1)))];
  return [
    `## ${top.path}`,
    '',
    ...fieldTable(
      under.filter((f) => f.when.length === 0),
      0,
    ),
    '',
    ...alternatives.flatMap((when) => [
      `### ${when}`,
      '',
      ...fieldTable(
        under.filter((f) => f.when[0] === when),
        1,
      ),
      '',
    ]),
  ];
}

/** docs/configuration.md: a section per top-level field, a table of it and every field under it. */
export function configurationMarkdown(fields: readonly ConfigField[] = configFields()): string {
  const topLevel = fields.filter((f) => !/[.[]/.test(f.path));
  return [
    '# Configuration: tiergate.config.json',
    '',
    '<!-- Generated from src/config/schema.ts by npm run generate: edit the schema, not this file. -->',
    '',
    'A real deployment for `tiergate run --config`, `tiergate doctor` and `tiergate profile --config`:',
    'where it answers, the organizations the run may spend quota on (keys by environment variable',
    'only), what the run may write, and how keys are revoked. This page is written from the same zod',
    'definition that validates a file and gives the editor schema (`schemas/config.schema.json`, which',
    '`tiergate init` names in `$schema`): every invalid field is reported by its path in one message,',
    'and an unknown field is refused. A duration is `"300ms"`, `"3s"`, `"1m"` or a number of ms.',
    'How to write a first file, and what each part is for: [deployment.md](deployment.md).',
    '',
    `Fields: ${topLevel.map((f) => `[${f.path}](#${f.path.replace(/[^a-z0-9-]/gi, '').toLowerCase()})`).join(' · ')}`,
    '',
    ...topLevel.flatMap((top) => fieldSection(top, fields)),
  ].join('\n');
}
