/**
 * The token users every e2e server that takes a token file knows (kcp's e2e token file has the same first user):
 * the shared servers start with them, and so does every tenancy server.
 */
export const users = {
  user1: { token: 'user-1-token', name: 'user-1', uid: '1111-1111-1111-1111', groups: ['team-1'] },
  user2: { token: 'user-2-token', name: 'user-2', uid: '2222-2222-2222-2222', groups: ['team-2'] },
  // Two more, so that a file with two fixtures on one server gives each its own outsiders.
  user3: { token: 'user-3-token', name: 'user-3', uid: '3333-3333-3333-3333', groups: ['team-3'] },
  user4: { token: 'user-4-token', name: 'user-4', uid: '4444-4444-4444-4444', groups: ['team-4'] },
};

/** The users as a kube-apiserver token file (`token,user,uid,"group1,group2"`). */
export function tokenFileLines(): string {
  return `${Object.values(users)
    .map((u) => `${u.token},${u.name},${u.uid},"${u.groups.join(',')}"`)
    .join('\n')}\n`;
}
