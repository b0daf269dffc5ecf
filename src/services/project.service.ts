/**
 * Projects of an organization and their subscription sets. Every create, update and delete, and every
 * subscription change, writes an audit entry in the same transaction as the change.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ProjectRepository } from '../db/project.repository.ts';
import type { ProjectRow } from '../domain/project.ts';
import { VendorRepository } from '../db/vendor.repository.ts';
import { AuditRepository } from '../db/audit.repository.ts';
import { isUniqueViolation } from '../db/unique-violation.ts';
import type { Actor } from '../domain/actor.ts';
import { catalogName, vendorKey } from '../domain/cpe.ts';
import { AppError, validationError } from '../domain/errors.ts';
import { isReservedName, NAME_MESSAGES, PROJECT_NAME } from '../domain/names.ts';
import {
  keysOfSubscriptions,
  normalizeSubscriptions,
  subscriptionsOfKeys,
  unknownSubscriptionDetails,
  type SubscriptionSet,
} from '../domain/subscriptions.ts';
import { assertPageInRange, offsetOf, type PageRequest } from '../domain/paging.ts';
import type { TriageStatus } from '../domain/triage.ts';

export const PROJECT_DESCRIPTION_MAX = 2000;
/** At most this many subscriptions (vendors and products) in one project. */
export const MAX_SUBSCRIPTIONS = 10_000;

/** The projects list reads at most this many subscription rows per project to count its CVEs. */
export const PROJECT_CVE_COUNT_CAP = 1000;
/** Triage statuses that mean "still to do" (the projects list counts them). */
export const OPEN_TRIAGE_STATUSES: readonly TriageStatus[] = [
  'to_evaluate',
  'pending_review',
  'analysis_in_progress',
  'remediation_in_progress',
];

/** A project with its CVE count (`capped`: at least that many) and open triage count. */
export interface ProjectWithCounts extends ProjectRow {
  cves: number;
  capped: boolean;
  open: number;
}

export interface ProjectInput {
  name: string;
  description?: string | undefined;
  active?: boolean | undefined;
}

export interface ProjectDetail {
  project: ProjectRow;
  subscriptions: SubscriptionSet;
}

/** A project and those of some vendor keys it subscribes to. */
export interface ProjectSubscriptionState {
  name: string;
  active: boolean;
  keys: string[];
}

/** One subscription, as the items endpoints take it: a whole vendor, or one of its products. */
export interface SubscriptionItem {
  vendor: string;
  product?: string | undefined;
}

const NAME_RULE =
  'starts with a letter or digit; letters, digits, spaces and _ . - only; at most 100 characters';

export class ProjectService {
  private readonly projects: ProjectRepository;
  private readonly vendors: VendorRepository;
  private readonly audit: AuditRepository;

  constructor(private readonly db: Kysely<DB>) {
    this.projects = new ProjectRepository(db);
    this.vendors = new VendorRepository(db);
    this.audit = new AuditRepository(db);
  }

  async list(organizationId: string, page: PageRequest): Promise<{ count: number; items: ProjectRow[] }> {
    const count = await this.projects.count(organizationId);
    assertPageInRange(page, count);
    return { count, items: await this.projects.list(organizationId, page.pageSize, offsetOf(page)) };
  }

  /**
   * A page of the organization's projects, each with its CVE count (capped: see
   * PROJECT_CVE_COUNT_CAP) and how many of its CVEs are in an open triage status.
   */
  async listWithCounts(
    organizationId: string,
    page: PageRequest,
  ): Promise<{ count: number; items: ProjectWithCounts[] }> {
    const { count, items } = await this.list(organizationId, page);
    const counts = await this.projects.listCounts(
      items.map((p) => p.id),
      PROJECT_CVE_COUNT_CAP,
      OPEN_TRIAGE_STATUSES,
    );
    return {
      count,
      items: items.map((p) => ({ ...p, ...(counts.get(p.id) ?? { cves: 0, capped: false, open: 0 }) })),
    };
  }

  /** The project named `name` in the organization; 404 `not_found` when there is none. */
  async find(organizationId: string, name: string, tx?: Transaction<DB>): Promise<ProjectRow> {
    // A name no project can have (a NUL byte, say) is not looked up: PostgreSQL text cannot hold it.
    const project = PROJECT_NAME.test(name)
      ? await this.projects.findByName(organizationId, name, tx)
      : undefined;
    if (!project) throw new AppError('not_found');
    return project;
  }

  /**
   * The project as its nested resources (subscriptions, CVEs, notifications, automations, reports)
   * see it: an inactive project is a 404 there, as on OpenCVE; only the project itself (read,
   * change, delete) answers while it is inactive, so that it can be activated again.
   */
  async findActive(organizationId: string, name: string, tx?: Transaction<DB>): Promise<ProjectRow> {
    const project = await this.find(organizationId, name, tx);
    if (!project.active) throw new AppError('not_found');
    return project;
  }

  async get(organizationId: string, name: string): Promise<ProjectDetail> {
    const project = await this.find(organizationId, name);
    return { project, subscriptions: await this.subscriptionsOf(project) };
  }

  private async subscriptionsOf(project: ProjectRow): Promise<SubscriptionSet> {
    return subscriptionsOfKeys(await this.projects.subscriptionKeys(project.id));
  }

  /**
   * Creates a project, with `subscriptions` when given (the CLI's `--vendor`/`--product`): all in one
   * transaction, so an unknown vendor leaves no project behind.
   */
  async create(
    organizationId: string,
    input: ProjectInput,
    actor: Actor,
    subscriptions?: Partial<SubscriptionSet>,
  ): Promise<ProjectDetail> {
    checkFields(input);
    const keys = subscriptions ? await this.knownKeys(subscriptions) : [];
    const name = input.name;
    await this.withUniqueName(() =>
      this.db.transaction().execute(async (tx) => {
        if (await this.projects.nameTaken(organizationId, name, tx)) throw nameTaken();
        const description = input.description ?? '';
        const active = input.active ?? true;
        const id = await this.projects.create({ organizationId, name, description, active }, tx);
        await this.audit.record(
          {
            organizationId,
            actor,
            action: 'project.create',
            resourceType: 'project',
            resourceId: id,
            resourceName: name,
            changes: {
              name: { old: null, new: name },
              description: { old: null, new: description },
              active: { old: null, new: active },
            },
          },
          tx,
        );
        if (keys.length) {
          const diff = await this.projects.replaceSubscriptions(id, keys, tx);
          await this.recordSubscriptionChange(organizationId, actor, { id, name }, diff, tx);
        }
      }),
    );
    return this.get(organizationId, name);
  }

  /**
   * Checks a new project's fields as create would (the rules, and the name not taken), without
   * creating it: 400 naming each problem.
   */
  async checkNew(organizationId: string, input: ProjectInput): Promise<void> {
    checkFields(input);
    if (await this.projects.nameTaken(organizationId, input.name)) throw nameTaken();
  }

  /** Changes the fields given; an unchanged value is not a change (no audit entry, same updated_at). */
  async update(
    organizationId: string,
    name: string,
    patch: Partial<ProjectInput>,
    actor: Actor,
  ): Promise<ProjectDetail> {
    checkFields(patch);
    const newName = await this.withUniqueName(() =>
      this.db.transaction().execute(async (tx) => {
        const project = await this.find(organizationId, name, tx);
        await this.projects.lock(project.id, tx);
        const changes: Record<string, { old: unknown; new: unknown }> = {};
        const values: Partial<ProjectInput> = {};
        for (const field of ['name', 'description', 'active'] as const) {
          const value = patch[field];
          if (value === undefined || value === project[field]) continue;
          changes[field] = { old: project[field], new: value };
          Object.assign(values, { [field]: value });
        }
        if (!Object.keys(changes).length) return project.name;
        if (values.name !== undefined && (await this.projects.nameTaken(organizationId, values.name, tx)))
          throw nameTaken();
        await this.projects.update(project.id, values, tx);
        await this.audit.record(
          {
            organizationId,
            actor,
            action: 'project.update',
            resourceType: 'project',
            resourceId: project.id,
            resourceName: values.name ?? project.name,
            changes,
          },
          tx,
        );
        return values.name ?? project.name;
      }),
    );
    return this.get(organizationId, newName);
  }

  /** Deletes the project with its subscriptions, tracker entries and comments. */
  async delete(organizationId: string, name: string, actor: Actor): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const project = await this.find(organizationId, name, tx);
      await this.projects.delete(project.id, tx);
      await this.audit.record(
        {
          organizationId,
          actor,
          action: 'project.delete',
          resourceType: 'project',
          resourceId: project.id,
          resourceName: project.name,
          changes: {
            name: { old: project.name, new: null },
            description: { old: project.description, new: null },
            active: { old: project.active, new: null },
          },
        },
        tx,
      );
    });
  }

  /**
   * Which of these vendor keys each project of the organization subscribes to, projects by name (the
   * subscribe controls of a CVE page). At most MAX_SUBSCRIPTIONS keys are asked about.
   */
  async subscriptionStates(
    organizationId: string,
    keys: readonly string[],
  ): Promise<ProjectSubscriptionState[]> {
    return this.projects.subscribedAmong(organizationId, keys.slice(0, MAX_SUBSCRIPTIONS));
  }

  async getSubscriptions(organizationId: string, name: string): Promise<SubscriptionSet> {
    return this.subscriptionsOf(await this.findActive(organizationId, name));
  }

  /**
   * Makes the subscriptions exactly `set` (docs/api-v2.md): every vendor and product must be in the catalog
   * (else 400 naming each unknown one, and nothing changes); one transaction, all or nothing.
   */
  async replaceSubscriptions(
    organizationId: string,
    name: string,
    set: Partial<SubscriptionSet>,
    actor: Actor,
  ): Promise<SubscriptionSet> {
    const project = await this.findActive(organizationId, name);
    const keys = await this.knownKeys(set);
    const { set: result } = await this.changeSubscriptions(organizationId, project, actor, (tx) =>
      this.projects.replaceSubscriptions(project.id, keys, tx),
    );
    return result;
  }

  /** Adds one subscription (idempotent: adding a present one changes nothing). */
  async addSubscription(
    organizationId: string,
    name: string,
    item: SubscriptionItem,
    actor: Actor,
  ): Promise<SubscriptionSet> {
    const project = await this.findActive(organizationId, name);
    const [key] = await this.knownKeys(setOf(item));
    const { set } = await this.changeSubscriptions(organizationId, project, actor, async (tx) => {
      if (project.subscriptions_count >= MAX_SUBSCRIPTIONS) tooMany();
      const added = await this.projects.addSubscription(project.id, key!, tx);
      return { added: added ? [key!] : [], removed: [] };
    });
    return set;
  }

  /**
   * Removes one subscription; idempotent, as on OpenCVE: one the project does not have (or a name the
   * catalog does not know) changes nothing and answers the set as it is. One whose vendor has left
   * the catalog can still be removed.
   */
  async removeSubscription(
    organizationId: string,
    name: string,
    item: SubscriptionItem,
    actor: Actor,
  ): Promise<SubscriptionSet> {
    const project = await this.findActive(organizationId, name);
    const key = vendorKey(
      catalogName(item.vendor),
      item.product === undefined ? undefined : catalogName(item.product),
    );
    const { set } = await this.changeSubscriptions(organizationId, project, actor, async (tx) => {
      const removed =
        !key.includes('\u0000') && (await this.projects.removeSubscription(project.id, key, tx));
      return { added: [], removed: removed ? [key] : [] };
    });
    return set;
  }

  /**
   * Runs `change` in a transaction holding the project, audits what it changed (nothing changed, no
   * entry) and returns the new set. `change` may only query through `tx`: the embedded database has
   * one session, which the transaction holds.
   */
  private async changeSubscriptions(
    organizationId: string,
    project: ProjectRow,
    actor: Actor,
    change: (tx: Transaction<DB>) => Promise<{ added: string[]; removed: string[] }>,
  ): Promise<{ set: SubscriptionSet; diff: { added: string[]; removed: string[] } }> {
    return this.db.transaction().execute(async (tx) => {
      if (!(await this.projects.lock(project.id, tx))) throw new AppError('not_found');
      const diff = await change(tx);
      if (diff.added.length || diff.removed.length) {
        await this.projects.update(project.id, {}, tx);
        await this.recordSubscriptionChange(organizationId, actor, project, diff, tx);
      }
      return { set: subscriptionsOfKeys(await this.projects.subscriptionKeys(project.id, tx)), diff };
    });
  }

  private recordSubscriptionChange(
    organizationId: string,
    actor: Actor,
    project: { id: string; name: string },
    diff: { added: string[]; removed: string[] },
    tx: Transaction<DB>,
  ): Promise<void> {
    return this.audit.record(
      {
        organizationId,
        actor,
        action: 'subscription.update',
        resourceType: 'subscription',
        resourceId: project.id,
        resourceName: project.name,
        changes: { added: diff.added, removed: diff.removed },
      },
      tx,
    );
  }

  /** The vendor keys of `set`, all known to the catalog; else 400 with one message per unknown name. */
  private async knownKeys(typed: Partial<SubscriptionSet>): Promise<string[]> {
    const set = normalizeSubscriptions(typed);
    const keys = keysOfSubscriptions(set);
    if (keys.length > MAX_SUBSCRIPTIONS) tooMany();
    const lookup = [...keys, ...Object.keys(set.products ?? {})].filter((k) => !k.includes('\u0000'));
    const known = await this.vendors.existingKeys(lookup);
    if (!Object.keys(unknownSubscriptionDetails(set, known)).length) return keys;
    // Unknown names: each with the nearest known one, when there is one.
    const nearest = await this.vendors.nearest(lookup.filter((k) => !known.has(k)));
    throw validationError(unknownSubscriptionDetails(set, known, nearest));
  }

  /** Runs `write`; a unique violation (two requests taking one name at once) is the 400 it would have been. */
  private async withUniqueName<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken();
      throw err;
    }
  }
}

const setOf = (item: SubscriptionItem): Partial<SubscriptionSet> =>
  item.product === undefined ? { vendors: [item.vendor] } : { products: { [item.vendor]: [item.product] } };

const nameTaken = () => validationError({ name: [NAME_MESSAGES.project.taken] });

function tooMany(): never {
  throw validationError({ subscriptions: [`at most ${MAX_SUBSCRIPTIONS} vendors and products per project`] });
}

function checkFields(input: Partial<ProjectInput>): void {
  const details: Record<string, string[]> = {};
  if (input.name !== undefined && !PROJECT_NAME.test(input.name)) details.name = [NAME_RULE];
  else if (input.name !== undefined && isReservedName(input.name))
    details.name = [NAME_MESSAGES.project.reserved];
  if (input.description !== undefined && input.description.length > PROJECT_DESCRIPTION_MAX)
    details.description = [`at most ${PROJECT_DESCRIPTION_MAX} characters`];
  else if (input.description?.includes('\u0000')) details.description = ['must not contain NUL characters'];
  if (Object.keys(details).length) throw validationError(details);
}
