// Run by test/core/cross-process.test.ts in a fresh Node process: reads a serialized snapshot on
// stdin, re-creates the agent it belongs to, approves every pending request, resumes the run and
// prints one JSON line describing what happened here.
import { approveAll, deserialize } from 'countersign';
import { crossProcessAgent, type CrossProcessLog } from './cross-process-agent.js';

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const log: CrossProcessLog = { executions: [] };
const agent = crossProcessAgent(log);
const snapshot = deserialize(Buffer.concat(chunks).toString('utf8'));
const done = await agent.execute(approveAll(snapshot, 'child-approver', { agent }));
process.stdout.write(
  `${JSON.stringify({ pid: process.pid, status: done.status, stopReason: done.stopReason, output: done.output, version: done.version, executions: log.executions, audit: done.audit })}\n`,
);
