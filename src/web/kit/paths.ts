/** The URLs a page links to in another feature, each part encoded. */

export const orgPath = (org: string, tab = '') => `/org/${encodeURIComponent(org)}${tab ? `/${tab}` : ''}`;

/** `/org/<org>/projects/<project>[/<tab>]`, each part encoded. */
export const projectPath = (org: string, project: string, tab = '') =>
  `${orgPath(org, 'projects')}/${encodeURIComponent(project)}${tab ? `/${tab}` : ''}`;
