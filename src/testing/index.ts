export { createScriptedModel, toolCallTurn, textTurn, lastToolResults, type ScriptedModel, type ScriptedTurn } from './scripted-model.js';
