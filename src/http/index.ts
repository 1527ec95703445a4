export { createApprovalApp, type ApprovalAppErrorContext } from './create-approval-app.js';
export type { ApprovalAppOptions } from './app-options.js';
export { serve, type ServeHandle, type ServeOptions } from './serve.js';
export type { EventFeed } from './events-route.js';
export { openApiDocument } from './openapi.js';
export { runView, type RunView } from './run-view.js';
export { problemFor, HttpProblem, type Problem } from '../kit/index.js';
