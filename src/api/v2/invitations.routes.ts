/**
 * `POST /invitations/accept`: a person accepts an invitation to an organization with the secret of
 * its link (from the invitation email) and their credentials. API v2's other routes take an
 * organization's token; this one takes none (the person is not in the organization yet): the link's
 * secret and the account's password are the proof, sign-in throttling applies to the password, and
 * the request counts against the per-address request budget.
 */
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services/services.ts';
import { commonErrors } from './schemas.ts';

const AcceptBody = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The secret of the invitation link: the last part of `/invitations/<token>`.',
    }),
    username: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 150,
        description:
          'For a new account: its username (required). For an existing account: its username or email (optional; the invited email by default).',
      }),
    ),
    password: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: "The existing account's password, or the new account's (at least 8 characters).",
    }),
  },
  { additionalProperties: false },
);

const Accepted = Type.Object({
  organization: Type.String({ description: 'The name of the organization joined.' }),
  role: Type.Enum(['owner', 'member']),
  username: Type.String(),
  email: Type.String(),
  account_created: Type.Boolean({ description: 'true when the acceptance created the account.' }),
});

export const invitationRoutes: FastifyPluginAsyncTypebox<{
  services: Pick<Services, 'invitations'>;
}> = async (app, { services }) => {
  app.post(
    '/invitations/accept',
    {
      config: { limitByAddress: true },
      schema: {
        tags: ['members'],
        summary: 'Accept an invitation with its link secret (no token: a new account, or your credentials)',
        description:
          "No API token: the invitation link's secret and the account's credentials. When an account with the invited email exists, `password` (and `username`, if given) must be its credentials; otherwise the account is created with `username` and `password`. The link works once.",
        body: AcceptBody,
        response: { 200: Accepted, ...commonErrors },
      },
    },
    async (request) => {
      const { token, username, password } = request.body;
      const accepted = await services.invitations.acceptWithCredentials(
        token,
        { username, password },
        request.ip,
      );
      return {
        organization: accepted.organization,
        role: accepted.role,
        username: accepted.user.username,
        email: accepted.user.email,
        account_created: accepted.accountCreated,
      };
    },
  );
};
