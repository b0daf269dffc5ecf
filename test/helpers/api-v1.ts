/**
 * The world of the API v1 tests: one database holding real catalog records (CVE 5, NVD API 2.0
 * records, the NVD 1.1 Heartbleed feed, CWE names), two organizations with members, an invitation,
 * a user of no organization, projects with subscriptions, user tags, tokens; and the app in both
 * v1 shapes over it. Also the seed's item shapes (§2) as JSON schemas, checked with ajv.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { storeTestAliases } from './aliases.ts';
import addFormatsModule from 'ajv-formats';
import { Type, type TSchema } from '@fastify/type-provider-typebox';
import type { Response } from 'light-my-request';
import { expect } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { AccountRepository } from '../../src/db/account.repository.ts';
import { sources } from '../../src/sources/index.ts';
import { buildTestApi, createToken, type TestApi } from './api.ts';
import { NVD_FILES } from './projects.ts';

export const HEARTBLEED_FEED = 'test/fixtures/nvd/feed-1.1-heartbleed.json.gz';
export const PASSWORD = 'correct horse battery staple';

export interface V1User {
  id: string;
  username: string;
  email: string;
  /** `Basic …` header value with the user's password. */
  basic: string;
}

export interface V1World {
  paged: TestApi;
  legacy: TestApi;
  acme: { id: string; name: string };
  globex: { id: string; name: string };
  /** Owner of acme. */
  alice: V1User;
  /** Joined member of acme. */
  bob: V1User;
  /** Invited to acme, not joined. */
  carol: V1User;
  /** Of no organization. */
  dave: V1User;
  /** Owner of globex. */
  eve: V1User;
  /** Bearer header values. */
  acmeToken: string;
  globexToken: string;
  get(api: TestApi, url: string, authorization?: string): Promise<Response>;
  close(): Promise<void>;
}

export const basic = (login: string, password: string) =>
  `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

/** Imports the real records every v1 test uses. */
export async function importCatalog(api: TestApi): Promise<void> {
  const { imports } = api.services;
  // CNA text is mapped with a new install's table and the test worlds' alias (helpers/aliases.ts).
  await storeTestAliases(api.services.database.db);
  await imports.importInputs(sources.cve5, ['test/fixtures/cve5/cves']);
  await imports.importInputs(sources.nvd, [...NVD_FILES, HEARTBLEED_FEED]);
  await imports.importInputs(sources.cwe, ['test/fixtures/cwe/cwe_v4.14_view_1000-excerpt.csv.gz']);
}

export async function buildV1World(database: Database, prefix: string): Promise<V1World> {
  const paged = await buildTestApi(database, { API_V1_SHAPE: 'paged' });
  const legacy = await buildTestApi(database, { API_V1_SHAPE: 'legacy' });
  const { services } = paged;
  await importCatalog(paged);
  const accounts = new AccountRepository(database.db);

  const user = async (name: string): Promise<V1User> => {
    const u = await services.accounts.createUser({
      username: `${prefix}-${name}`,
      email: `${name}@${prefix}.example`,
      password: PASSWORD,
    });
    return { id: u.id, username: u.username, email: u.email, basic: basic(u.username, PASSWORD) };
  };
  const [alice, bob, carol, dave, eve] = (await Promise.all(
    ['alice', 'bob', 'carol', 'dave', 'eve'].map(user),
  )) as [V1User, V1User, V1User, V1User, V1User];

  const acme = await services.accounts.createOrganization(`${prefix}-acme`, alice.username);
  const globex = await services.accounts.createOrganization(`${prefix}-globex`, eve.username);
  await accounts.addMembership({
    organizationId: acme.id,
    userId: bob.id,
    email: bob.email,
    role: 'member',
    joined: true,
  });
  await accounts.addMembership({
    organizationId: acme.id,
    userId: null,
    email: carol.email,
    role: 'member',
    joined: false,
  });

  const aliceActor = { type: 'user' as const, id: alice.id, name: alice.username };
  const eveActor = { type: 'user' as const, id: eve.id, name: eve.username };
  await services.projects.create(acme.id, { name: 'web', description: 'The web shop' }, aliceActor, {
    vendors: ['tukaani'],
    products: { apache: ['log4j2'] },
  });
  await services.projects.create(acme.id, { name: 'mobile' }, aliceActor, {
    products: { google: ['android'] },
  });
  await services.projects.create(globex.id, { name: 'secret' }, eveActor, {
    vendors: ['openafs'],
    products: { adobe: ['flash_player'] },
  });

  await services.tags.set(bob.id, 'CVE-2021-44228', ['urgent', 'java']);
  await services.tags.set(bob.id, 'CVE-2024-3094', ['urgent']);
  await services.tags.set(alice.id, 'CVE-2014-0160', ['urgent']);

  return {
    paged,
    legacy,
    acme: { id: acme.id, name: acme.name },
    globex: { id: globex.id, name: globex.name },
    alice,
    bob,
    carol,
    dave,
    eve,
    acmeToken: (await createToken(services, acme.id, aliceActor, { mode: 'read' })).header,
    globexToken: (await createToken(services, globex.id, eveActor, { mode: 'read' })).header,
    get: (api, url, authorization) =>
      api.app.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} }),
    close: async () => {
      await paged.close();
      await legacy.close();
    },
  };
}

// --- The seed's shapes (§2), written from the seed, not from the code ---------------------------

const strict = <T extends Record<string, TSchema>>(props: T) =>
  Type.Object(props, { additionalProperties: false });
const nullable = (s: TSchema) => Type.Union([s, Type.Null()]);
const Strings = Type.Array(Type.String());
const SECONDS_Z = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$';
const MICROS_Z = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$';
const CveTime = Type.String({ pattern: SECONDS_Z });
const OwnTime = Type.String({ pattern: MICROS_Z });
const Uuid = Type.String({ format: 'uuid' });
const CveId = Type.String({ pattern: '^CVE-\\d{4}-\\d{4,}$' });
const CweId = Type.String({ pattern: '^CWE-\\d+$' });

/** §2.1 */
export const Envelope = (item: TSchema) =>
  strict({
    count: Type.Integer({ minimum: 0 }),
    next: nullable(Type.String({ format: 'uri' })),
    previous: nullable(Type.String({ format: 'uri' })),
    results: Type.Array(item),
  });

export const Paged = {
  /** §2.2 */
  Organization: strict({ id: Uuid, created_at: OwnTime, updated_at: OwnTime, name: Type.String() }),
  /** §2.3 (list) */
  Project: strict({
    id: Uuid,
    created_at: OwnTime,
    updated_at: OwnTime,
    name: Type.String(),
    description: Type.String(),
  }),
  /** §2.3 (detail) */
  ProjectDetail: strict({
    id: Uuid,
    created_at: OwnTime,
    updated_at: OwnTime,
    name: Type.String(),
    description: Type.String(),
    subscriptions: strict({ vendors: Strings, products: Type.Record(Type.String(), Strings) }),
  }),
  /** §2.4 */
  Named: strict({
    id: Uuid,
    created_at: OwnTime,
    updated_at: OwnTime,
    name: Type.String({ pattern: '^[^A-Z]+$' }),
  }),
  /** §2.5 */
  Weakness: strict({ created_at: OwnTime, updated_at: OwnTime, cwe_id: CweId }),
  /** §2.6 */
  Cve: strict({ created_at: CveTime, updated_at: CveTime, cve_id: CveId, description: Type.String() }),
  /** §2.7 */
  CveDetail: (withConfigurations: boolean) => {
    const metric = (data: TSchema) => strict({ data, provider: nullable(Type.String()) });
    const Empty = strict({});
    const Any = Type.Object({});
    const Operator = Type.Union([Type.Literal('AND'), Type.Literal('OR')]);
    const Configuration = strict({
      operator: Operator,
      nodes: Type.Array(
        strict({
          operator: Operator,
          negate: Type.Boolean(),
          cpeMatch: Type.Array(
            strict({
              criteria: Type.String({ pattern: '^cpe:2\\.3:' }),
              matchCriteriaId: Type.String(),
              vulnerable: Type.Boolean(),
              versionStartIncluding: Type.Optional(Type.String()),
              versionEndIncluding: Type.Optional(Type.String()),
              versionStartExcluding: Type.Optional(Type.String()),
              versionEndExcluding: Type.Optional(Type.String()),
            }),
          ),
        }),
      ),
    });
    return strict({
      created_at: CveTime,
      updated_at: CveTime,
      cve_id: CveId,
      description: Type.String(),
      title: Type.String(),
      metrics: strict({
        kev: metric(Any),
        ssvc: metric(
          Type.Union([
            Empty,
            strict({
              options: strict({
                Automatable: Type.String(),
                Exploitation: Type.String(),
                'Technical Impact': Type.String(),
              }),
              version: Type.String(),
            }),
          ]),
        ),
        cvssV2_0: metric(Any),
        cvssV3_0: metric(Any),
        cvssV3_1: metric(
          Type.Union([
            Empty,
            strict({ score: Type.Number(), vector: Type.String({ pattern: '^CVSS:3\\.1/' }) }),
          ]),
        ),
        cvssV4_0: metric(Any),
        threat_severity: metric(nullable(Type.Unknown())),
      }),
      weaknesses: Strings,
      vendors: Type.Array(Type.String({ pattern: '^[^$]+(\\$PRODUCT\\$[^$]+)?$' })),
      ...(withConfigurations ? { nvd_cpe_configurations: Type.Array(Configuration) } : {}),
    });
  },
};

const MinuteZ = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}Z$' });
const LangValue = Type.Object({ lang: Type.String(), value: Type.String() });

/** §2.8 `raw_nvd_data`: the fields the seed lists (NVD's own extra fields allowed). */
export const RawNvdData = Type.Object({
  cve: Type.Object({
    data_type: Type.String(),
    data_format: Type.String(),
    data_version: Type.String(),
    CVE_data_meta: Type.Object({ ID: CveId, ASSIGNER: Type.String() }),
    references: Type.Object({
      reference_data: Type.Array(
        Type.Object({ url: Type.String(), name: Type.String(), tags: Strings, refsource: Type.String() }),
      ),
    }),
    description: Type.Object({ description_data: Type.Array(LangValue) }),
    problemtype: Type.Object({
      problemtype_data: Type.Array(Type.Object({ description: Type.Array(LangValue) })),
    }),
  }),
  impact: Type.Object({
    baseMetricV2: Type.Optional(
      Type.Object({
        cvssV2: Type.Object({
          version: Type.String(),
          baseScore: Type.Number(),
          accessVector: Type.String(),
          vectorString: Type.String(),
          authentication: Type.String(),
          integrityImpact: Type.String(),
          accessComplexity: Type.String(),
          availabilityImpact: Type.String(),
          confidentialityImpact: Type.String(),
        }),
        severity: Type.String(),
        acInsufInfo: Type.Optional(Type.Boolean()),
        impactScore: Type.Optional(Type.Number()),
        obtainAllPrivilege: Type.Optional(Type.Boolean()),
        exploitabilityScore: Type.Optional(Type.Number()),
        obtainUserPrivilege: Type.Optional(Type.Boolean()),
        obtainOtherPrivilege: Type.Optional(Type.Boolean()),
        userInteractionRequired: Type.Optional(Type.Boolean()),
      }),
    ),
    baseMetricV3: Type.Optional(
      Type.Object({
        cvssV3: Type.Object({
          scope: Type.String(),
          version: Type.String(),
          baseScore: Type.Number(),
          attackVector: Type.String(),
          baseSeverity: Type.String(),
          vectorString: Type.String(),
          integrityImpact: Type.String(),
          userInteraction: Type.String(),
          attackComplexity: Type.String(),
          availabilityImpact: Type.String(),
          privilegesRequired: Type.String(),
          confidentialityImpact: Type.String(),
        }),
        impactScore: Type.Optional(Type.Number()),
        exploitabilityScore: Type.Optional(Type.Number()),
      }),
    ),
  }),
  publishedDate: MinuteZ,
  lastModifiedDate: MinuteZ,
  configurations: Type.Object({
    CVE_data_version: Type.String(),
    nodes: Type.Array(
      Type.Object({
        operator: Type.Union([Type.Literal('AND'), Type.Literal('OR')]),
        cpe_match: Type.Array(
          Type.Object({
            cpe23Uri: Type.String({ pattern: '^cpe:2\\.3:' }),
            vulnerable: Type.Boolean(),
            versionStartIncluding: Type.Optional(Type.String()),
            versionEndExcluding: Type.Optional(Type.String()),
          }),
        ),
      }),
    ),
  }),
});

const CvssScores = strict({ v2: Type.Optional(Type.Number()), v3: Type.Optional(Type.Number()) });

export const Legacy = {
  CveSummary: strict({ id: CveId, summary: Type.String(), created_at: CveTime, updated_at: CveTime }),
  CveDetail: strict({
    id: CveId,
    summary: Type.String(),
    created_at: CveTime,
    updated_at: CveTime,
    cvss: strict({ v2: nullable(Type.Number()), v3: nullable(Type.Number()) }),
    vendors: Type.Record(Type.String(), Strings),
    cwes: Strings,
    raw_nvd_data: RawNvdData,
  }),
  Cwe: strict({ id: CweId, name: Type.String(), description: Type.String() }),
  Product: strict({ name: Type.String(), human_name: Type.String() }),
  VendorSubscription: strict({ name: Type.String(), human_name: Type.String() }),
  ProductSubscription: strict({
    name: Type.String(),
    human_name: Type.String(),
    parent_vendor: Type.String(),
  }),
  Report: strict({ id: Type.String({ pattern: '^[A-Z0-9]{12}$' }), created_at: OwnTime, details: Strings }),
  AlertItem: strict({
    id: Uuid,
    created_at: OwnTime,
    cve: CveId,
    details: strict({ products: Strings, vendors: Strings, filters: Strings }),
  }),
  AlertEvent: strict({
    cve: CveId,
    type: Type.Union(
      ['new_cve', 'first_time', 'references', 'cpes', 'cvss', 'summary', 'cwes'].map((t) => Type.Literal(t)),
    ),
    details: Type.Union([
      strict({
        changed: Type.Array(Type.Unknown()),
        added: Type.Array(Type.Unknown()),
        removed: Type.Array(Type.Unknown()),
      }),
      // A `cvss` event, as OpenCVE 1.5 wrote it (opencve/checks/cvss.py): the v2 and v3 scores before and after.
      strict({ old: CvssScores, new: CvssScores }),
    ]),
  }),
  /** An added reference of an alert event. */
  Reference: strict({ url: Type.String(), name: Type.String(), refsource: Type.String(), tags: Strings }),
};

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
const compiled = new WeakMap<TSchema, ValidateFunction>();

/** Fails the test with ajv's errors when `value` does not have the shape. */
export function expectShape(value: unknown, schema: TSchema): void {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  const ok = validate(value);
  expect(ok ? [] : validate.errors).toEqual([]);
}

export const ids = (body: unknown): string[] =>
  ((body as { results?: { cve_id: string }[] }).results ?? (body as { id: string }[])).map((r) =>
    'cve_id' in r ? r.cve_id : (r as { id: string }).id,
  );
