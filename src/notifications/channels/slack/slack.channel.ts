/** The Slack channel: an incoming-webhook message in Block Kit (`slack-message.ts`). */
import { chatWebhookChannel } from '../chat-webhook.ts';
import { slackMessage } from './slack-message.ts';

export const slackChannel = chatWebhookChannel(slackMessage, '/services/***/***');
