/**
 * Where tiergate's own files are. Its modules run from the sources (src/*.ts: the tests, tsx) or
 * compiled (dist/*.js: the package, bin/tiergate.js); both folders sit just below the package root,
 * so the files beside them (package.json, scenarios/) are found the same way from either.
 */

/** The package root: package.json, scenarios/, schemas/. */
export const PACKAGE_ROOT = new URL('../../', import.meta.url);

/** The folder of tiergate's own modules: src/, or dist/ once compiled. */
export const MODULES_ROOT = new URL('../', import.meta.url);

/** True when tiergate runs compiled (dist/), false when it runs from its TypeScript sources. */
export const COMPILED = !import.meta.url.endsWith('.ts');

/** The extension of tiergate's own modules as they run: `.js` compiled, `.ts` from the sources. */
export const MODULE_EXT = COMPILED ? '.js' : '.ts';
