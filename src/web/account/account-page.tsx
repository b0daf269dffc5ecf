/** The frame of the signed-in user's account pages: the heading and the tabs (settings, security). */
import type { ComponentChildren } from 'preact';
import type { PageContext } from '../kit/context.ts';
import { Notice } from '../kit/fields.tsx';
import { Layout } from '../kit/layout.tsx';

function AccountTabs({ current }: { current: 'settings' | 'security' }) {
  return (
    <nav class="tabs" aria-label="Account">
      <a href="/account" aria-current={current === 'settings' ? 'page' : undefined}>
        Settings
      </a>
      <a href="/account/security" aria-current={current === 'security' ? 'page' : undefined}>
        Password and two-factor
      </a>
    </nav>
  );
}

/** An account page: the frame with its heading, the tabs, a notice, then the content. */
export function AccountPage({
  ctx,
  title,
  heading = 'Your account',
  tab,
  notice,
  children,
}: {
  ctx: PageContext;
  title: string;
  heading?: string;
  tab: 'settings' | 'security';
  notice?: string | undefined;
  children: ComponentChildren;
}) {
  return (
    <Layout ctx={ctx} title={title} section="account">
      <div class="page-head">
        <h1>{heading}</h1>
      </div>
      <AccountTabs current={tab} />
      {notice && <Notice>{notice}</Notice>}
      {children}
    </Layout>
  );
}
