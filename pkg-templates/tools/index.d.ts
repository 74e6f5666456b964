// Types of `credence/tools`: the agent tools, one definition rendered for the
// Vercel AI SDK, plain function calling (OpenAI, Anthropic) and MCP.
import type { Memory } from '../index.js';

/** A JSON Schema object as the tools use it (draft-07 compatible). */
export interface ToolJsonSchema {
  type: 'object';
  properties: Record<string, { type?: string; description?: string; enum?: string[]; minimum?: number; maximum?: number }>;
  required?: string[];
  additionalProperties: false;
}

export type ToolName = 'remember' | 'recall' | 'why' | 'conflicts' | 'predicates' | 'settle' | 'undo' | 'retract';

export interface ToolDefinition {
  name: ToolName;
  title: string;
  description: string;
  inputSchema: ToolJsonSchema;
  annotations?: { readOnlyHint?: boolean };
  /** A person's act (settle, undo, retract): withheld with `peopleTools: false`. */
  person: boolean;
}

export interface ToolsOptions {
  /** Offer settle, undo and retract (default true). Their descriptions tell the agent to call them only on the person's explicit instruction. */
  peopleTools?: boolean;
  /** Offer only these tools. */
  only?: ToolName[];
  /** `recall` consolidates merge_on_read slots with the memory's merge hook. */
  consolidate?: boolean;
}

/** What `execute` resolves to. It never throws for a refusal: the model reads `text` and can correct itself. */
export interface ToolResult {
  isError: boolean;
  /** What a model reads: a line per fact for recall (unless `format: "json"`), JSON otherwise; for a refusal `CODE (field): message`. */
  text: string;
  /** The full objects (`{ claims }` for recall, the Outcome for remember, …); `{ error }` for a refusal. */
  data: unknown;
  error?: { code: string; field?: string; message: string };
}

/** One problem a tool's arguments have (Standard Schema's issue). */
export interface ToolInputIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey>;
}

/**
 * A tool's input schema as a Standard Schema (standardschema.dev) that also
 * carries its JSON Schema (`~standard.jsonSchema`): what the AI SDK accepts
 * as `inputSchema`, with no dependency on `ai` or zod.
 */
export interface ToolInputSchema<Input = Record<string, unknown>> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => { readonly value: Input; readonly issues?: undefined } | { readonly issues: ReadonlyArray<ToolInputIssue> };
    readonly types?: { readonly input: Input; readonly output: Input } | undefined;
    readonly jsonSchema: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
      readonly output: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
  /** The plain JSON Schema. */
  readonly jsonSchema: ToolJsonSchema;
}

/** A Vercel AI SDK tool (what `tool({...})` from `ai` returns), usable without importing `ai`. */
export interface AiSdkTool {
  type: 'function';
  title: string;
  description: string;
  inputSchema: ToolInputSchema;
  /** Resolves to the text the model reads; a refusal throws a CredenceError, which the SDK hands to the model as a tool error. */
  execute: (args: Record<string, unknown>, options?: unknown) => Promise<string>;
}

export interface CredenceTools {
  readonly definitions: ToolDefinition[];
  /** Runs a tool by name with the model's arguments (an object, parsed from JSON). */
  execute(name: string, args: unknown): Promise<ToolResult>;
  /** `[{ name, description, parameters }]`: plain JSON Schemas for function calling. */
  schemas(): Array<{ name: ToolName; description: string; parameters: ToolJsonSchema }>;
  /** OpenAI Chat Completions `tools`. */
  openai(): Array<{ type: 'function'; function: { name: ToolName; description: string; parameters: ToolJsonSchema } }>;
  /** Anthropic Messages `tools`. */
  anthropic(): Array<{ name: ToolName; description: string; input_schema: ToolJsonSchema }>;
  /** Vercel AI SDK tools by name, for `generateText({ tools })`. */
  aiSdk(): Record<ToolName, AiSdkTool>;
  /** What to tell the agent (the MCP server's `instructions`; add it to a system prompt). */
  instructions(): string;
}

/**
 * The agent tools on one Memory.
 *
 * ```js
 * import { createTools } from 'credence/tools';
 * const tools = createTools(memory);
 * const { text } = await tools.execute('recall', { subject: 'user' });
 * ```
 *
 * Arguments are flat: `source` and `sourceTrust` of remember are the
 * candidate's `provenance.sourceId` and `provenance.sourceTrust`.
 */
export declare function createTools(memory: Memory, options?: ToolsOptions): CredenceTools;

/** Vercel AI SDK tools: `generateText({ model, tools: aiSdkTools(memory), prompt })`. */
export declare function aiSdkTools(memory: Memory, options?: ToolsOptions): Record<ToolName, AiSdkTool>;

/** How to name subjects, read status and confidence, and declare multi-valued predicates: the MCP server's `instructions`. */
export declare function agentInstructions(): string;
