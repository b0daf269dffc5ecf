// The layers of docs/architecture.md as lint rules: each layer of src/ imports only from the layers
// below it, and inside src/web each feature imports only the kit, shared/ and its own folder. Kept
// apart from eslint.config.js so that test/tooling/import-rules.test.ts checks them.
//
// ESLint's flat config replaces a rule's options when two entries match one file (it does not merge
// them), so every file group has exactly one entry with all of its patterns.
import tseslint from 'typescript-eslint';

/** An import of one of `folders` of src/ (by relative path: `../db/x.ts`, `../../services/y.ts`). */
const into = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|\\.tsx?$)`;

/** The feature folders of src/web: each registers its own pages through its index.ts. */
const FEATURES = ['catalog', 'account', 'org', 'project', 'email-links', 'admin'];

const pattern = (regex, message) => ({ regex, message });

/** `no-restricted-imports` for the files of one group: `folders` of src/ it may not import, plus `extra` patterns. */
const layer = (files, folders, why, extra = []) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: [pattern(into(folders), why), ...extra] }],
  },
});

const PAGES_ONLY_FROM_REGISTRY = pattern(
  '\\.routes\\.tsx?$',
  "A page module (*.routes.tsx) is imported only by its feature's index.ts: move what you need into the feature's own files, shared/ or kit/.",
);
const NOT_THE_PLUGIN = pattern(
  '(^|/)(web\\.plugin|error-page|session-store)(\\.tsx?)?$',
  'Pages never import the web plugin, its error page or its session store: the page context and service types are in kit/context.ts.',
);
/** Routes and pages call services only; api/ and web/ never import each other (shared HTTP pieces are in http/). */
const CALLERS_NEVER = ['db', 'jobs', 'cli', 'main', 'server'];
const CALLERS_WHY =
  'Routes and pages call services only: never db/, jobs/, cli/, main.ts or server.ts (types they need come from domain/ or the services).';
const WEB_FILES = (glob) => [`src/web/${glob}.ts`, `src/web/${glob}.tsx`];

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
    ['services', 'api', 'web', 'mcp', 'http', 'jobs', 'cli', 'main', 'server'],
    'db/, sources/, notifications/ and sync/ sit below the services: they never import services, api, web, mcp, http, jobs, cli, main.ts or server.ts.',
  ),
  layer(
    ['src/services/**/*.ts'],
    ['api', 'web', 'mcp', 'http', 'jobs', 'cli', 'main', 'server'],
    'Services never import api/, web/, mcp/, http/, jobs/, cli/, main.ts or server.ts: their callers sit above them.',
  ),
  layer(
    ['src/jobs/**/*.ts'],
    ['api', 'web', 'mcp', 'http', 'cli', 'main', 'server'],
    'Jobs call services; they never import api/, web/, mcp/, http/, cli/, main.ts or server.ts.',
  ),
  layer(
    ['src/http/**/*.ts'],
    ['api', 'web', 'mcp', 'db', 'jobs', 'cli', 'main', 'server'],
    'http/ holds what API routes, pages and the MCP endpoint share (CSV downloads, the rate limit): it sits below them and imports none, nor db/, jobs/, cli/, main.ts or server.ts.',
  ),
  layer(
    ['src/api/**/*.ts'],
    [...CALLERS_NEVER, 'web', 'mcp'],
    `${CALLERS_WHY} The API never imports web/ or mcp/.`,
  ),
  // The MCP server: a caller of the services as the API is, apart from it (docs/mcp.md).
  layer(
    ['src/mcp/**/*.ts'],
    [...CALLERS_NEVER, 'web', 'api'],
    `${CALLERS_WHY} The MCP server never imports api/ or web/: it builds its own compact results from the services' data.`,
  ),
  // web/ top level: the plugin (composes the kit and the four registries), its error page and session store.
  layer(
    ['src/web/*.ts', 'src/web/*.tsx'],
    [...CALLERS_NEVER, 'api', 'mcp'],
    `${CALLERS_WHY} The web never imports api/ or mcp/`,
    [PAGES_ONLY_FROM_REGISTRY],
  ),
  layer(
    WEB_FILES('kit/**/*'),
    [...CALLERS_NEVER, 'api', 'mcp'],
    `${CALLERS_WHY} The web never imports api/ or mcp/`,
    [
      pattern(
        `^\\.\\./(shared|${FEATURES.join('|')})/`,
        'kit/ is what every page may use: it imports nothing else of web/ (no feature, no shared/ part).',
      ),
      NOT_THE_PLUGIN,
      PAGES_ONLY_FROM_REGISTRY,
    ],
  ),
  layer(
    WEB_FILES('shared/**/*'),
    [...CALLERS_NEVER, 'api', 'mcp'],
    `${CALLERS_WHY} The web never imports api/ or mcp/`,
    [
      pattern(
        `^(\\.\\./)+(${FEATURES.join('|')})/`,
        'shared/ holds parts two features draw: it imports kit/ and shared/ only, never a feature.',
      ),
      NOT_THE_PLUGIN,
      PAGES_ONLY_FROM_REGISTRY,
    ],
  ),
  ...FEATURES.flatMap((feature) => {
    const others = FEATURES.filter((f) => f !== feature);
    const fence = pattern(
      `^(\\.\\./)+(${others.join('|')})/`,
      `A feature imports kit/, shared/ and its own folder only: move what ${feature}/ needs from another feature into kit/ (a path, an access rule) or shared/ (a part both draw).`,
    );
    const base = [fence, NOT_THE_PLUGIN];
    return [
      // The registry: the one file of the feature that imports its pages.
      layer(
        [`src/web/${feature}/index.ts`],
        [...CALLERS_NEVER, 'api', 'mcp'],
        `${CALLERS_WHY} The web never imports api/ or mcp/`,
        base,
      ),
      {
        ...layer(
          WEB_FILES(`${feature}/**/*`),
          [...CALLERS_NEVER, 'api', 'mcp'],
          `${CALLERS_WHY} The web never imports api/ or mcp/`,
          [...base, PAGES_ONLY_FROM_REGISTRY],
        ),
        ignores: [`src/web/${feature}/index.ts`],
      },
    ];
  }),
  // A view is a pure function of its data: no request, no reply, no service call.
  {
    files: ['src/web/**/*.view.tsx'],
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'fastify', message: 'A view draws data: it never touches the request or the reply.' },
          ],
          patterns: [
            {
              regex: '^(\\.\\./)+services/',
              allowTypeImports: true,
              message: 'A view takes services/ types only (`import type`): the route calls the service.',
            },
          ],
        },
      ],
    },
  },
];
