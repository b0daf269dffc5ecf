// The layers of docs/architecture.md as lint rules: each layer of src/ imports only from the layers
// below it. Kept apart from eslint.config.js so that test/tooling/import-rules.test.ts checks them.

/** An import of one of `folders` of src/ (by relative path: `../db/x.ts`, `../../services/y.ts`). */
const into = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|\\.ts$)`;

/** `no-restricted-imports` for the files of one layer: `folders` are the parts of src/ it may not import. */
const layer = (files, folders, why) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: [{ regex: into(folders), message: why }] }],
  },
});

export const layerRules = [
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^\\.\\./', message: 'src/domain/ is pure: it imports nothing of ours outside itself.' },
          ],
        },
      ],
    },
  },
  layer(
    ['src/db/**/*.ts', 'src/sources/**/*.ts', 'src/notifications/**/*.ts', 'src/sync/**/*.ts'],
    ['services', 'api', 'web', 'jobs', 'cli', 'main'],
    'db/, sources/, notifications/ and sync/ sit below the services: they never import services, api, web, jobs, cli or main.ts.',
  ),
  layer(
    ['src/services/**/*.ts'],
    ['api', 'web', 'jobs', 'cli', 'main'],
    'Services never import api/, web/, jobs/, cli/ or main.ts: their callers sit above them.',
  ),
  layer(
    ['src/jobs/**/*.ts'],
    ['api', 'web', 'cli', 'main'],
    'Jobs call services; they never import api/, web/, cli/ or main.ts.',
  ),
  layer(
    ['src/api/**/*.ts', 'src/web/**/*.ts', 'src/web/**/*.tsx'],
    ['db', 'jobs', 'cli', 'main'],
    'Routes and pages call services only: never db/, jobs/, cli/ or main.ts (types they need come from domain/ or the services).',
  ),
];
