// countersign/discord: approvals asked and decided in a Discord channel, built on the channel kit.
export { createDiscordNotifier, type DiscordCardRef, type DiscordNotifierOptions } from './discord-notifier.js';
export { createDiscordInteractions, type DiscordInteractionsOptions } from './discord-interactions.js';
export { escapeDiscord } from './discord-markup.js';
