// credence/tools in TypeScript: the AI SDK's generateText takes aiSdkTools(memory)
// as its tools with no cast, and the function-calling renderings are typed.
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { Memory } from 'credence';
import { aiSdkTools, createTools, type ToolResult } from 'credence/tools';

const memory = new Memory();
export const run = generateText({ model: new MockLanguageModelV3(), tools: aiSdkTools(memory), stopWhen: isStepCount(3), prompt: 'hi' });

const tools = createTools(memory, { peopleTools: false, only: ['remember', 'recall'] });
export const openai: string[] = tools.openai().map((t) => t.function.name);
export const anthropic = tools.anthropic()[0]?.input_schema.properties;
export const result: Promise<ToolResult> = tools.execute('recall', { subject: 'user' });
export const text: Promise<string> = result.then((r) => (r.isError ? `${r.error?.code}` : r.text));
