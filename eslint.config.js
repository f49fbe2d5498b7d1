// Lint: typescript-eslint's recommended rules, and the structure rules the codebase keeps: no function
// over 80 lines, no block nested over 4 deep (docs/architecture.md, "Style"). Formatting is Biome's (biome.json).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'reports/**', 'node_modules/**', 'test/limiters/node_modules/**', 'fixtures/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      // A leading underscore names what a signature or a destructuring must hold but the code does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Tests read whatever JSON a target answers (test/helpers/target.ts `json`).
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false, IIFEs: true }],
      'max-depth': ['error', 4],
    },
  },
);
