export {
  createScriptedModel,
  toolCallTurn,
  textTurn,
  lastToolResults,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedTurn,
} from './scripted-model.js';
