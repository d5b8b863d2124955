'use strict';
// PTY mode (issue 11): pty: true gives the child a terminal of its own as
// stdin, stdout and stderr, its controlling terminal, so programs behave
// as they do in a terminal; the output comes as stdout.
const test = require('node:test');
const assert = require('node:assert/strict');
const sk = require('..');
const { nativeTest } = require('./helpers');

nativeTest('pty: all three fds are a terminal of the size asked, and the controlling one', async () => {
  const probe = 'for fd in 0 1 2; do test -t $fd && printf "$fd "; done; echo; stty size; ' +
    '( : </dev/tty ) 2>/dev/null && echo has-tty; echo err >&2';
  const r = await sk.run('sh', ['-c', probe], { pty: true, ptySize: [40, 100] });
  assert.equal(r.code, 0);
  // the terminal writes \n as \r\n; stderr went to the terminal too
  assert.equal(r.stdout, '0 1 2 \r\n40 100\r\nhas-tty\r\nerr\r\n');
  assert.equal(r.stderr, '');
  const plain = await sk.run('sh', ['-c', probe]);
  assert.equal(plain.stdout, '\n', 'without pty: no terminal at all (the test can fail)');
});

nativeTest('pty: the default window is 24 x 80', async () => {
  const r = await sk.run('stty', ['size'], { pty: true });
  assert.equal(r.stdout, '24 80\r\n');
});

nativeTest('pty: input is typed into the terminal', async () => {
  const r = await sk.run('sh', ['-c', 'read -r line; echo "got $line"'], { pty: true, input: 'hello\n' });
  assert.equal(r.code, 0);
  assert.match(r.stdout, /got hello\r\n$/);
});

nativeTest('pty: streaming and timeouts work as with pipes', async () => {
  const chunks = [];
  const r = await sk.run('sh', ['-c', 'echo one; exec sleep 100'], { pty: true, timeout: 300, onStdout: (c) => chunks.push(c) });
  assert.equal(r.timedOut, true);
  assert.equal(r.signal, 'SIGKILL');
  assert.equal(chunks.join(''), 'one\r\n');
});
