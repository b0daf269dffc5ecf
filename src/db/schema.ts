/** Table types for Kysely. One interface per table; the migrations are the source of truth. */
import type { CatalogCve } from '../domain/cve-facts.ts';
import type { VendorProvenance } from '../domain/vendor-provenance.ts';
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { ChannelType } from '../notifications/channel-registry.ts';
import type { AutomationTrigger, ReportFrequency } from '../domain/automation.ts';
import type { DeliveryKind, DeliveryStatus, EmailStatus } from '../domain/notification.ts';
import type { DateFormat, OneTimeLinkPurpose, Theme } from '../domain/user.ts';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

/** Table `cve`: the domain's CatalogCve, with how each column is written. */
export type CveTable = Omit<
  CatalogCve,
  | 'created_at'
  | 'updated_at'
  | 'metrics'
  | 'references'
  | 'nvd_configurations'
  | 'inserted_at'
  | 'modified_at'
> & {
  created_at: Timestamp;
  updated_at: Timestamp;
  metrics: Json<CatalogCve['metrics']>;
  references: Json<CatalogCve['references']>;
  nvd_configurations: Json<CatalogCve['nvd_configurations']>;
  inserted_at: Generated<Date>;
  modified_at: Generated<Date>;
  /** Where each vendor key comes from (migration 0032); null for a CVE merged before it. */
  vendor_sources: ColumnType<VendorProvenance | null, string | null | undefined, string | null>;
};

export interface CveSourceTable {
  cve_id: string;
  provider: string;
  data: Json<Record<string, unknown>>;
  raw: Json<Record<string, unknown> | null>;
  hash: string;
  updated_at: Generated<Date>;
}

/** The raw record last imported per (source, CVE): see migration 0007. */
export interface CveInputTable {
  source: string;
  cve_id: string;
  fingerprint: string;
  providers: string[];
  hashes: string[];
}

export interface CveChangeTable {
  id: Generated<string>;
  created_at: Generated<Date>;
  cve_id: string;
  types: string[];
  data: Json<unknown[]>;
  /** Commit order, for the event processor's cursor. */
  seq: Generated<number>;
  /** Where an imported change was recorded (`opencve`: OpenCVE's KB); null for a change of ours. */
  origin: Generated<string | null>;
}

export interface VendorTable {
  id: Generated<string>;
  name: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ProductTable {
  id: Generated<string>;
  vendor_id: string;
  name: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface WeaknessTable {
  id: Generated<string>;
  cwe_id: string;
  name: string | null;
  description: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ImportRunTable {
  id: Generated<string>;
  source: string;
  started_at: Generated<Date>;
  finished_at: Date | null;
  status: string;
  counts: Json<Record<string, number>>;
  problems: Json<unknown[]>;
  /** Renewed while the importing process runs; a `running` run past it was interrupted. */
  lease_until: Date | null;
}

export interface UserTable {
  id: Generated<string>;
  username: string;
  email: string;
  password_hash: string;
  is_admin: Generated<boolean>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  time_zone: Generated<string>;
  date_format: Generated<DateFormat>;
  theme: Generated<Theme>;
  /** The TOTP secret sealed with SecretBox; set from the start of setup, in use once `totp_enabled_at` is. */
  totp_secret: string | null;
  totp_enabled_at: Date | null;
  /** The TOTP time step of the last code accepted: a code of that step or earlier is refused. */
  totp_last_step: number | null;
  /** Set while the account is disabled by a server administrator: no sign-in, no session, no token of theirs. */
  disabled_at: Date | null;
  /** `vulntrack user link-sso`: the next single sign-on with this email links the account (migration 0040). */
  sso_link_allowed: Generated<boolean>;
}

/** A user's identity at an OpenID Connect provider, matched by (issuer, subject) (migration 0040). */
export interface SsoIdentityTable {
  issuer: string;
  subject: string;
  user_id: string;
  created_at: Generated<Date>;
  last_sign_in_at: Date | null;
}

export interface RecoveryCodeTable {
  id: Generated<string>;
  user_id: string;
  code_hash: string;
  used_at: Date | null;
  created_at: Generated<Date>;
}

export interface WebSessionTable {
  id: string;
  user_id: string | null;
  data: Json<Record<string, unknown>>;
  expires_at: Date;
  created_at: Generated<Date>;
}

export interface OneTimeLinkTable {
  id: Generated<string>;
  purpose: OneTimeLinkPurpose;
  token_hash: string;
  user_id: string | null;
  membership_id: string | null;
  expires_at: Date;
  used_at: Date | null;
  created_at: Generated<Date>;
}

/** One account email sent (migration 0036): what the account-mail limit counts. */
export interface AccountMailTable {
  id: Generated<string>;
  kind: string;
  sender: string | null;
  recipient: string;
  created_at: Date;
}

export interface OrganizationTable {
  id: Generated<string>;
  name: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface MembershipTable {
  id: Generated<string>;
  organization_id: string;
  user_id: string | null;
  email: string;
  role: 'owner' | 'member';
  date_invited: Generated<Date>;
  date_joined: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ApiTokenTable {
  id: Generated<string>;
  organization_id: string;
  token_id: string;
  secret_hash: string;
  name: string;
  description: Generated<string>;
  mode: 'read' | 'write';
  scopes: string[];
  created_by: string | null;
  created_at: Generated<Date>;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_by: string | null;
}

export interface ProjectTable {
  id: Generated<string>;
  organization_id: string;
  name: string;
  description: Generated<string>;
  active: Generated<boolean>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** Bumped by triggers when its CVE list may change outside the catalog (migration 0010). */
  list_version: Generated<number>;
}

export interface ProjectSubscriptionTable {
  project_id: string;
  vendor_key: string;
  created_at: Generated<Date>;
}

/** A project's keyword watch, stored normalized (migration 0039). */
export interface ProjectKeywordTable {
  project_id: string;
  keyword: string;
  created_at: Generated<Date>;
}

/** A watched keyword's match on a CVE, with where it matched (migration 0039). */
export interface CveKeywordTable {
  keyword: string;
  cve_id: string;
  fields: string[];
  created_at: Generated<Date>;
}

export interface TrackerEntryTable {
  project_id: string;
  cve_id: string;
  status: string | null;
  assignee_id: string | null;
  assigned_at: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface TrackerCommentTable {
  id: Generated<string>;
  project_id: string;
  cve_id: string;
  author_type: 'user' | 'token';
  author_id: string;
  author_name: string;
  body: string;
  created_at: Generated<Date>;
  /** When the comment was last edited; null when never (migration 0025). */
  edited_at: Generated<Date | null>;
}

export interface AuditLogTable {
  id: Generated<string>;
  organization_id: string;
  created_at: Generated<Date>;
  actor_type: 'user' | 'token' | 'system';
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  resource_name: string | null;
  changes: Json<Record<string, unknown>>;
  /** Write order (migration 0037): ties of `created_at` are ordered by it. */
  seq: Generated<number>;
}

export interface JobTable {
  /** bigserial; int8 is parsed as a number on both engines (client.ts). */
  id: Generated<number>;
  queue: Generated<string>;
  name: string;
  payload: Json<Record<string, unknown>>;
  status: Generated<'pending' | 'running' | 'succeeded' | 'failed' | 'dead'>;
  run_at: Generated<Date>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  lease_until: Date | null;
  locked_by: string | null;
  last_error: string | null;
  dedupe_key: string | null;
  created_at: Generated<Date>;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface SyncStateTable {
  source: string;
  cursor: Json<Record<string, unknown>>;
  last_attempt_at: Date | null;
  last_success_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  consecutive_failures: Generated<number>;
  updated_at: Generated<Date>;
  /** The first sync attempt (migration 0038): a source that never succeeded is as old as this. */
  first_attempt_at: Date | null;
  /** When the owners were emailed that the source is stale (migration 0038); cleared by a success. */
  stale_alerted_at: Date | null;
}

/** A result computed by a scheduled job, stored under its name (migration 0021). */
export interface ComputedResultTable {
  name: string;
  data: Json<unknown>;
  computed_at: Date;
  duration_ms: number;
}

export interface CatalogStateTable {
  id: number;
  version: number;
}

/** One row per (vendor key, CVE), kept by triggers on `cve` (migration 0009): vendor lists in order. */
export interface CveVendorTable {
  vendor_key: string;
  updated_at: Timestamp;
  cve_id: string;
}

export interface EpssMoveTable {
  seq: Generated<number>;
  cve_id: string;
  old_score: number | null;
  new_score: number;
  created_at: Generated<Date>;
}

export interface EventCursorTable {
  stream: string;
  seq: number;
  updated_at: Generated<Date>;
}

export interface NotificationTable {
  id: Generated<string>;
  project_id: string;
  name: string;
  /** A registered channel (the CHECK of migration 0005 lists them: a new one needs a migration). */
  type: ChannelType;
  is_enabled: Generated<boolean>;
  /** What may be shown: the email address, a URL's host, header names. */
  configuration: Json<Record<string, unknown>>;
  /** Encrypted JSON (URLs, header values, the signing secret): see domain/secret-box.ts. */
  secrets: string;
  email_status: EmailStatus | null;
  email_token_hash: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface AutomationTable {
  id: Generated<string>;
  project_id: string;
  name: string;
  is_enabled: Generated<boolean>;
  trigger_type: AutomationTrigger;
  frequency: ReportFrequency | null;
  schedule_time: string | null;
  schedule_timezone: string | null;
  schedule_weekday: number | null;
  configuration: Json<Record<string, unknown>>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface AutomationExecutionTable {
  id: Generated<string>;
  automation_id: string;
  executed_at: Generated<Date>;
  window_start: Timestamp;
  window_end: Timestamp;
  matched_cves_count: number;
  results: Json<unknown[]>;
  report_id: string | null;
  /** The matched CVEs as they were (domain/automation-execution.ts); null before migration 0015. */
  cves: Json<unknown[]> | null;
}

export interface ReportTable {
  id: Generated<string>;
  link: string;
  project_id: string;
  automation_id: string | null;
  period_start: Timestamp;
  period_end: Timestamp;
  created_at: Generated<Date>;
  summary: Json<Record<string, unknown>>;
}

export interface ReportItemTable {
  id: Generated<string>;
  report_id: string;
  cve_id: string;
  matched_keys: string[];
  event_types: string[];
  change_ids: string[];
  events: Json<{ type: string; details: unknown }[]>;
  highest_cvss: number | null;
  created_at: Generated<Date>;
}

export interface DeliveryTable {
  id: Generated<string>;
  notification_id: string;
  kind: DeliveryKind;
  /** The payload without `changes` when `entries` is set (else the whole payload, written before 0008). */
  payload: Json<Record<string, unknown>>;
  /** The payload's `changes`, in order: ids of `delivery_entry` rows. */
  entries: string[] | null;
  status: Generated<DeliveryStatus>;
  attempts: ColumnType<unknown[], string | undefined, string>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface DeliveryEntryTable {
  id: Generated<string>;
  body: string;
  created_at: Generated<Date>;
}

export interface UserCveTagTable {
  user_id: string;
  cve_id: string;
  tag: string;
  created_at: Generated<Date>;
}

export interface SavedViewTable {
  id: Generated<string>;
  /** Who saved it. */
  user_id: string;
  /** Shared with this organization's members; null: private to `user_id`. */
  organization_id: string | null;
  name: string;
  /** The CVE list's query string, without the leading `?`. */
  query: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** A user's last visit of a project's dashboard (migration 0028): its feed starts at `since`. */
export interface ProjectVisitTable {
  project_id: string;
  user_id: string;
  visited_at: Date;
  /** Where the current visit's feed starts: the visit before it (or 7 days before a first visit). */
  since: Date;
  /** The current visit is the user's first (its feed is the default window). */
  first: Generated<boolean>;
}

/** A user's Atom feed of a project (migration 0028): the SHA-256 of its secret, hex. */
export interface ProjectFeedTable {
  project_id: string;
  user_id: string;
  /** Random; the secret is HMAC(server secret, nonce). A new nonce is a new URL. */
  nonce: string;
  secret_hash: string;
  created_at: Generated<Date>;
}

/** The learned CNA-text alias table, one row (migration 0029): `domain/vendor-aliases.ts`'s AliasTable. */
export interface VendorAliasTableTable {
  id: Generated<number>;
  aliases: Json<Record<string, unknown>>;
  /** `shipped`: learned from the bundled sample and loaded at first start; `learned`: from this catalog. */
  origin: 'shipped' | 'learned';
  /** How many records taught it. */
  learned_from: number;
  learned_at: Generated<Date>;
  /** Moves on every change of the table or of an override: processes reload on a new revision. */
  revision: Generated<string>;
}

/** An operator's own alias (`add`) or veto of a CNA text → key mapping (migration 0029). */
export interface VendorAliasOverrideTable {
  id: Generated<string>;
  /** The CNA vendor text as the operator typed it. */
  vendor_text: string;
  /** The CNA product text; null: the override is about the vendor text alone. */
  product_text: string | null;
  key: string;
  action: 'add' | 'veto';
  /** The normalized text (`aliasLookup`): unique with `key`. */
  lookup: string;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface WeaknessCveCountTable {
  cwe_id: string;
  cve_count: number;
}

export interface DB {
  cve: CveTable;
  cve_source: CveSourceTable;
  cve_input: CveInputTable;
  cve_change: CveChangeTable;
  vendor: VendorTable;
  product: ProductTable;
  weakness: WeaknessTable;
  import_run: ImportRunTable;
  app_user: UserTable;
  sso_identity: SsoIdentityTable;
  web_session: WebSessionTable;
  one_time_link: OneTimeLinkTable;
  account_mail: AccountMailTable;
  recovery_code: RecoveryCodeTable;
  organization: OrganizationTable;
  membership: MembershipTable;
  api_token: ApiTokenTable;
  project: ProjectTable;
  project_subscription: ProjectSubscriptionTable;
  project_keyword: ProjectKeywordTable;
  cve_keyword: CveKeywordTable;
  tracker_entry: TrackerEntryTable;
  tracker_comment: TrackerCommentTable;
  audit_log: AuditLogTable;
  job: JobTable;
  sync_state: SyncStateTable;
  catalog_state: CatalogStateTable;
  computed_result: ComputedResultTable;
  cve_vendor: CveVendorTable;
  vendor_alias_table: VendorAliasTableTable;
  vendor_alias_override: VendorAliasOverrideTable;
  epss_move: EpssMoveTable;
  event_cursor: EventCursorTable;
  notification: NotificationTable;
  automation: AutomationTable;
  automation_execution: AutomationExecutionTable;
  report: ReportTable;
  report_item: ReportItemTable;
  delivery: DeliveryTable;
  delivery_entry: DeliveryEntryTable;
  user_cve_tag: UserCveTagTable;
  saved_view: SavedViewTable;
  weakness_cve_count: WeaknessCveCountTable;
  project_visit: ProjectVisitTable;
  project_feed: ProjectFeedTable;
}

/**
 * A served row of `cve`. `vendor_sources` is not part of the CVE as the APIs serve it (SPEC's shape);
 * the catalog writer and the "why (not) in this project" answer read it.
 */
export type CveRow = Omit<Selectable<CveTable>, 'vendor_sources'>;
/** A row of `cve` is the domain's CatalogCve: the compiler refuses the two declarations disagreeing. */
type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type CveRowIsCatalogCve = Assert<Agree<CveRow, CatalogCve>>;
type Assert<T extends true> = T;
