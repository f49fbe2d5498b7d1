/**
 * The source text of the lists `npm run generate` writes (the check registry, the task list, and the
 * IDs and kinds the lower layers use), in a kept order: what an earlier list held stays where it
 * was, what is new goes last (by name), what is gone goes. Tests compare the committed files with
 * what these write, so a stale one fails.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';

/** An export of a module, as importing it gives it. */
export interface ModuleExport {
  readonly file: string;
  readonly name: string;
  readonly value: unknown;
}

/**
 * Every export of the `.ts` modules of `dir` but the generators (imported: what a module declares is
 * what it exports, however it is written), file by file in name order.
 */
export async function moduleExports(dir: URL): Promise<ModuleExport[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.ts') && !file.startsWith('generate-')).sort();
  const found: ModuleExport[] = [];
  for (const file of files) {
    const exports = (await import(new URL(file, dir).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exports)) found.push({ file, name, value });
  }
  return found;
}

/** One entry: the module it is exported from, its name there, and the literal it stands for (an ID, a kind). */
export interface Listed {
  readonly file: string;
  readonly name: string;
  readonly literal: string;
}

/** The names an earlier list held, in its order (its `  name,` lines). */
export function listedNames(previous: string): string[] {
  return [...previous.matchAll(/^ {2}(\w+),$/gm)].map((m) => m[1] as string);
}

/** `items` in the order `previous` listed them, new ones last by name. */
export function keptOrder(items: readonly Listed[], previous: string): Listed[] {
  const byName = new Map(items.map((item) => [item.name, item]));
  const kept = listedNames(previous).filter((name) => byName.has(name));
  const added = [...byName.keys()].filter((name) => !kept.includes(name)).sort();
  return [...kept, ...added].map((name) => byName.get(name) as Listed);
}

export interface ListSource {
  /** Says where the list comes from, in a line comment each: the file is not to be edited. */
  readonly header: readonly string[];
  /** The doc comment of the exported constant. */
  readonly doc: string;
  readonly constant: string;
}

/** A module importing the entries (`importOf`: one import of a module's entries) and exporting them as one `as const` list. */
export function importsListSource(
  source: ListSource,
  items: readonly Listed[],
  importOf: (file: string, entries: readonly Listed[]) => string,
): string {
  const files = [...new Set(items.map((item) => item.file))];
  return [
    ...source.header.map((line) => `// ${line}`),
    ...files.map((file) =>
      importOf(
        file,
        items.filter((item) => item.file === file),
      ),
    ),
    '',
    `/** ${source.doc} */`,
    `export const ${source.constant} = [`,
    ...items.map((item) => `  ${item.name},`),
    '] as const;',
    '',
  ].join('\n');
}

/** A module exporting the entries' literals as one `as const` list, and (after it) `tail`'s lines. */
export function literalsListSource(source: ListSource, items: readonly Listed[], tail: readonly string[] = []): string {
  return [
    ...source.header.map((line) => `// ${line}`),
    '',
    `/** ${source.doc} */`,
    `export const ${source.constant} = [`,
    ...items.map((item) => `  '${item.literal}',`),
    '] as const;',
    ...tail,
    '',
  ].join('\n');
}

/** How a folder's lists are made: its entries in order, the module importing them, the module of their literals. */
export interface ListMaker {
  order(exports: readonly ModuleExport[], previous: string): Listed[];
  list(items: readonly Listed[]): string;
  literals(items: readonly Listed[]): string;
}

/**
 * Rewrites the list of the modules of `dir` and the module of their literals (`npm run generate`),
 * the order kept from the list it replaces; says what it wrote.
 */
export async function writeLists(
  dir: URL,
  files: { readonly list: string; readonly literals: string },
  make: ListMaker,
) {
  const [listUrl, literalsUrl] = [new URL(files.list, dir), new URL(files.literals, dir)];
  const items = make.order(await moduleExports(dir), await readFile(listUrl, 'utf8').catch(() => ''));
  await writeFile(listUrl, make.list(items));
  await writeFile(literalsUrl, make.literals(items));
  process.stdout.write(`wrote ${listUrl.pathname} and ${literalsUrl.pathname}\n`);
}
