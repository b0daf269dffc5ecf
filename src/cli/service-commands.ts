/**
 * The service commands, one list: each is declared once in its `<noun>.command.ts` (command.ts) and
 * runs in this process, or (while `serve` holds the embedded data dir) inside the running server,
 * handed over the control socket: the same code either way, with a serializable result.
 */
import type { Services } from '../services/services.ts';
import { commandKey, type CommandResult, type ServiceCommand } from './command.ts';
import { importCommand } from './import.command.ts';
import { inventoryDelete, inventoryList, inventoryUpload } from './inventory.command.ts';
import { jobsRetry, jobsStatus } from './jobs.command.ts';
import { memberAdd, memberList, memberRemove } from './member.command.ts';
import { migrateFromOpencve } from './migrate-from-opencve.command.ts';
import { orgCreate } from './org.command.ts';
import { projectCreate } from './project.command.ts';
import { sync } from './sync.command.ts';
import { tagList, tagSet } from './tag.command.ts';
import { tokenCreate, tokenList, tokenRevoke } from './token.command.ts';
import {
  userCreate,
  userDisable,
  userDisableTwoFactor,
  userEnable,
  userLinkSso,
  userList,
  userResetPassword,
} from './user.command.ts';
import { VENDOR_COMMANDS } from './vendors.command.ts';

/** Commands that stop early when their signal is aborted and still answer (others run to the end). */
export const CANCELLABLE_COMMANDS: ReadonlySet<string> = new Set(['import']);

/** The service commands, in the order `vulntrack --help` lists them (among the local ones: main.ts). */
export const SERVICE_COMMANDS = {
  jobsStatus,
  jobsRetry,
  import: importCommand,
  sync,
  userCreate,
  userList,
  userResetPassword,
  userDisableTwoFactor,
  userDisable,
  userEnable,
  userLinkSso,
  orgCreate,
  projectCreate,
  migrateFromOpencve,
  tokenCreate,
  tokenList,
  tokenRevoke,
  memberAdd,
  memberList,
  memberRemove,
  tagSet,
  tagList,
  inventoryUpload,
  inventoryList,
  inventoryDelete,
  ...VENDOR_COMMANDS,
} satisfies Record<string, ServiceCommand>;

/**
 * Each service command by its name on the control socket (`token.create`), its arguments as they
 * arrive there (the JSON of what its `args` returned in the CLI).
 */
export const serviceCommands: Record<
  string,
  (
    services: Services,
    args: Record<string, unknown>,
    progress: (line: string) => void,
    signal?: AbortSignal,
  ) => Promise<CommandResult>
> = Object.fromEntries(
  Object.values(SERVICE_COMMANDS).map((c: ServiceCommand) => [
    commandKey(c),
    (
      services: Services,
      args: Record<string, unknown>,
      progress: (line: string) => void,
      signal?: AbortSignal,
    ) => c.run(services, args as never, progress, signal),
  ]),
);
