import { z } from 'zod';
import { toolAnnotationsSchema } from '../run/tool-annotations.js';
import { functionSchema } from '../run/function-schema.js';
import { escalateSchema, remindAfterMsSchema } from '../policy/nudge-plan.js';
import type {
  ConnectorStatus,
  DecisionKind,
  EscalationStep,
  Message,
  ToolAnnotations,
  ToolSpec,
} from '../run/types.js';
import { decisionsSchema } from '../run/decision-kinds.js';
import { optionsObject, parseOptions } from '../options.js';
import { type QuorumOptions, quorumOptionsSchema } from '../policy/quorum.js';
import type { Approvers } from '../policy/approvers.js';
import { type Question, questionSchema } from '../run/question.js';

/** What a tool's `needsApproval` and policy predicates see. */
export interface ToolContext {
  readonly runId: string;
  readonly toolCallId: string;
  readonly messages: readonly Message[];
}

/** What a tool's `execute` receives beside its input. */
export interface ToolExecuteContext extends ToolContext {
  /** `${runId}:${toolCallId}`: the same on every retry of this call. */
  readonly idempotencyKey: string;
  /**
   * The W3C `traceparent` of this call's span, when telemetry traces it (`countersign/otel`): pass it on to what the
   * tool calls (an HTTP header, an MCP server's `_meta`), so the trace continues there. MCP tools do.
   */
  readonly traceparent?: string;
  /** Fires when the run is cancelled while the tool runs (from any process, where the store carries cancels), or when its `timeoutMs` is up. */
  readonly signal: AbortSignal;
}

export type ApprovalRequirement = boolean | { readonly required: boolean; readonly reason?: string };

export interface ToolDefinition<Input> {
  /** Letters, digits, `_`, `-` and `.`; unique within an agent. */
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType<Input>;
  /**
   * `true` (the default), `false`, a fixed `{ required, reason }` (the reason is shown to the approver), or a
   * function of the validated input returning either.
   */
  readonly needsApproval?:
    | ApprovalRequirement
    | ((input: Input, ctx: ToolContext) => ApprovalRequirement | Promise<ApprovalRequirement>);
  /** The question shown to the approver; defaults to the tool's description. */
  readonly approvalPrompt?: (input: Input) => string;
  readonly execute: (input: Input, ctx: ToolExecuteContext) => unknown;
  /** Time a person has to decide; overrides the agent's `approvalTtlMs`. */
  readonly approvalTtlMs?: number;
  /** Safe to run again with the same idempotency key after a crash. */
  readonly idempotent?: boolean;
  /**
   * How long a call may run. Past it the call's signal fires and the run stops waiting: an idempotent tool's call
   * becomes an error result the model reads (`<tool> timed out after <n> ms`), any other is put to a person again,
   * as after a crash (its outcome is unknown). No limit when left out.
   */
  readonly timeoutMs?: number;
  /** Has no side effects: the read-only preset (`presets.readOnlyAutoApprove`) allows it whatever its name. */
  readonly readOnly?: boolean;
  /**
   * False for a tool no standing permission may cover: its calls offer no wider decision than once (no run memory,
   * session or agent grant), and no rule is suggested for it (`suggestRules`). A person decides each call.
   */
  readonly grantable?: boolean;
  /** Hints shown to the approver as badges (MCP tool annotations); they change no policy. */
  readonly annotations?: ToolAnnotations;
  /** The external system this tool talks to (`github`, `slack`), for policy globs. */
  readonly connector?: string;
  /**
   * The connector's status now. A request made while it is not `connected`
   * carries a `connector-disconnected` warning, and the runtime lists it in
   * `connectors()`.
   */
  readonly connectorStatus?: () => ConnectorStatus;
  /** Who may decide calls of this tool; anyone when left out. */
  readonly approvers?: Approvers;
  /**
   * Re-announce a request for this tool every this many ms while nobody decides it (at least 1000); a matching
   * rule's `remindAfterMs` wins, the agent's applies when neither sets one. Reminders repeat until the request is
   * decided, expires or the run is cancelled.
   */
  readonly remindAfterMs?: number;
  /**
   * Bring more people in while nobody decides: each step, `afterMs` after the request was made, adds its approver ids
   * to who may decide (a request that names no approvers stays open to anyone) or tells the channel `{ channel }`.
   * Steps must be in increasing `afterMs`. A matching rule's `escalate` wins.
   */
  readonly escalate?: readonly EscalationStep[];
  /** Several people must approve each call (a rule's `approvals` wins over this). */
  readonly approvals?: QuorumOptions;
  /**
   * A call of this tool is a question to a person (`askHuman` makes such tools): the form of the answer. Approving it
   * takes an `answer` that fits, which reaches `execute` as `input.answer`; no rule or grant answers it.
   */
  readonly question?: Question;
  /**
   * The decisions a person may make on its calls (every kind when left out): `'approve'` once, `'edit'` the
   * arguments, `'deny'`, or decide for the `'run'`, `'session'` or `'agent'`. A matching rule's list can only
   * tighten it; closing a request undecided stays possible.
   */
  readonly decisions?: readonly DecisionKind[];
}

/** A tool ready for `createAgent`: the definition plus its JSON Schema spec. */
export interface Tool<Input = unknown> extends ToolDefinition<Input> {
  readonly spec: ToolSpec;
}

/** Zod 3 schemas carry `_def` and parse, but lack zod 4's `_zod` internals that validation and JSON Schema need. */
const isZod3Schema = (value: unknown) =>
  typeof value === 'object' && value !== null && '_def' in value && !('_zod' in value);

const definitionSchema = optionsObject({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, 'use 1 to 128 letters, digits, "_", "-" or "."'),
  description: z.string().min(1, 'describe what the tool does; the model and the approver read it'),
  input: z.custom<z.ZodType>((value) => value instanceof z.ZodType, {
    error: (issue) =>
      isZod3Schema(issue.input)
        ? 'is a zod 3 schema; countersign needs zod 4 schemas: npm install zod@^4 and import { z } from "zod", or on zod 3.25 import { z } from "zod/v4"'
        : 'must be a zod schema, e.g. z.object({ path: z.string() })',
  }),
  needsApproval: z
    .union(
      [
        z.boolean(),
        z.strictObject({
          required: z.boolean({ error: 'must be true or false' }),
          reason: z.string().max(4000).optional(),
        }),
        functionSchema(),
      ],
      {
        error: 'must be true, false, { required, reason? } or a function (input, ctx) => one of those',
      },
    )
    .optional(),
  approvalPrompt: functionSchema().optional(),
  execute: functionSchema('must be a function (input, ctx) => result'),
  approvalTtlMs: z.number().int().positive().optional(),
  idempotent: z.boolean().optional(),
  timeoutMs: z
    .number()
    .int('must be a whole number of milliseconds')
    .positive('must be above 0 milliseconds')
    .max(2_147_483_647, 'must be at most 2147483647 ms (about 24.8 days), the longest timer Node keeps')
    .optional(),
  readOnly: z.boolean().optional(),
  grantable: z.boolean().optional(),
  annotations: toolAnnotationsSchema.optional(),
  connector: z.string().min(1).optional(),
  connectorStatus: functionSchema('must be a function () => ConnectorStatus').optional(),
  approvers: z.union([z.array(z.string()), functionSchema()]).optional(),
  remindAfterMs: remindAfterMsSchema.optional(),
  escalate: escalateSchema.optional(),
  approvals: quorumOptionsSchema.optional(),
  question: questionSchema.optional(),
  decisions: decisionsSchema.optional(),
});

/** A tool of any input type, for lists of tools: `execute` takes its own input, so no narrower type holds them all. */
// biome-ignore lint/suspicious/noExplicitAny: tools of every input type share one list
export type AnyTool = Tool<any>;

/**
 * Declares a tool. Its input is validated with the zod schema before anyone is
 * asked to approve it, and a tool that does not say otherwise needs approval.
 *
 * @example
 * const deleteFile = defineTool({
 *   name: 'delete_file',
 *   description: 'Delete a file',
 *   input: z.object({ path: z.string() }),
 *   needsApproval: true,
 *   approvalPrompt: (input) => `Delete ${input.path}?`,
 *   execute: async ({ path }) => fs.rm(path),
 * });
 */
export function defineTool<Input>(definition: ToolDefinition<Input>): Tool<Input> {
  parseOptions(
    definitionSchema,
    definition,
    `defineTool(${JSON.stringify((definition as { name?: unknown })?.name ?? '?')})`,
    { subject: 'definition' },
  );
  const parameters = z.toJSONSchema(definition.input, { unrepresentable: 'any' }) as Record<string, unknown>;
  delete parameters['$schema'];
  return Object.freeze({
    ...definition,
    spec: Object.freeze({ name: definition.name, description: definition.description, parameters }),
  });
}
