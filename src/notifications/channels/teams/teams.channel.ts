/** The Microsoft Teams channel: a Workflows message carrying an Adaptive Card (`teams-card.ts`). */
import { chatWebhookChannel } from '../chat-webhook.ts';
import { teamsMessage } from './teams-card.ts';

export const teamsChannel = chatWebhookChannel(teamsMessage, '/***');
