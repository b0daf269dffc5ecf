/**
 * How an MCP tool is declared (docs/mcp.md): its name, a description written for a model to choose
 * it well, its arguments (zod, validated by the SDK), what API v2 would require of the token for the
 * same thing (scope and write), and its work: one service call (or a documented few) as the token's
 * organization, giving a summary sentence and compact data.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Actor, TokenAuth } from '../domain/actor.ts';
import type { Requirement } from '../domain/scopes.ts';
import type { Services } from '../services/services.ts';
import type { ToolAnswer } from './results.ts';

/** The services the MCP server calls. */
export type McpServices = Pick<
  Services,
  | 'config'
  | 'tokens'
  | 'catalog'
  | 'projects'
  | 'projectCves'
  | 'projectMatch'
  | 'inventoryMatch'
  | 'tracker'
  | 'trackerComments'
  | 'dashboards'
>;

/** Who calls: the token, and the actor its writes are recorded as (`<name> via mcp`). */
export interface McpCaller {
  auth: TokenAuth;
  actor: Actor;
}

export interface ToolSpec<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  requires: Requirement;
  input: Shape;
  run(args: z.infer<z.ZodObject<Shape>>, services: McpServices, caller: McpCaller): Promise<ToolAnswer>;
}

/** Declares a tool, its arguments and its work typed together. */
export const tool = <Shape extends z.ZodRawShape>(spec: ToolSpec<Shape>): ToolSpec =>
  spec as unknown as ToolSpec;

/**
 * What the client is told of a tool's behaviour: only `triage_cve` writes (and is not idempotent: a
 * comment is added each time); every tool reads our own data, nothing of the open world.
 */
export function annotationsOf(spec: ToolSpec): ToolAnnotations {
  return {
    title: spec.title,
    readOnlyHint: !spec.requires.write,
    destructiveHint: false,
    idempotentHint: !spec.requires.write,
    openWorldHint: false,
  };
}
