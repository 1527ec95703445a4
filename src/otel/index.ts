export { openTelemetry, type OpenTelemetryOptions } from './open-telemetry.js';
