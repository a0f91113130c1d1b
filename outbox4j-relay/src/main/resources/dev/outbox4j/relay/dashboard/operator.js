// The dashboard's operator face: what waits for an operator, grouped by failure and paged; the operator's actions on
// it and on destinations; the audit log. Every action is asked for its count first (dryRun=true), shown in a
// confirmation, and applied with the count the operator confirmed (confirm=N): the relay refuses it (409) when the
// count changed meanwhile. Data is only ever inserted as text (never as HTML).
(function () {
  'use strict';
  var GROUPS_PAGE = 20;
  var ENTRIES_PAGE = 100;

  function byId(id) { return document.getElementById(id); }

  // A token in the page's fragment (#token=...) is kept for this tab and removed from the address bar.
  var match = /[#&]token=([^&]+)/.exec(window.location.hash);
  if (match) {
    sessionStorage.setItem('outbox4j-token', decodeURIComponent(match[1]));
    history.replaceState(null, '', window.location.pathname);
  }
  var tokenInput = byId('token');
  tokenInput.value = sessionStorage.getItem('outbox4j-token') || '';
  tokenInput.addEventListener('input', function () { sessionStorage.setItem('outbox4j-token', tokenInput.value); });

  function number(value) { return Number(value).toLocaleString('en-US'); }
  function plural(count, one, many) { return number(count) + ' ' + (count === 1 ? one : many); }

  function say(message, ok) {
    var node = byId('message');
    node.textContent = message;
    node.className = ok ? 'ok' : 'error';
  }

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  function cell(row, value, cls) {
    var td = document.createElement('td');
    td.textContent = value === null || value === undefined ? '–' : String(value);
    if (cls) { td.className = cls; }
    row.appendChild(td);
    return td;
  }

  function button(label, cls, onClick) {
    var node = document.createElement('button');
    node.type = 'button';
    node.className = cls;
    node.textContent = label;
    node.addEventListener('click', onClick);
    return node;
  }

  function time(iso) {
    var at = new Date(iso);
    return isNaN(at.getTime()) ? String(iso) : at.toLocaleString('en-GB');
  }

  // ------------------------------------------------------------------------------------------ confirmation

  var dialog = byId('confirm-dialog');
  var pending = null;
  function settle(answer) {
    if (dialog.open) { dialog.close(); }
    if (pending) { var resolve = pending; pending = null; resolve(answer); }
  }
  byId('confirm-ok').addEventListener('click', function () { settle(true); });
  byId('confirm-cancel').addEventListener('click', function () { settle(false); });
  dialog.addEventListener('cancel', function () { settle(false); });

  function confirmed(text, okLabel) {
    settle(false);
    byId('confirm-text').textContent = text;
    byId('confirm-ok').textContent = okLabel;
    dialog.showModal();
    return new Promise(function (resolve) { pending = resolve; });
  }

  function post(action, params, body) {
    var token = tokenInput.value.trim();
    var headers = {};
    if (token) { headers.Authorization = 'Bearer ' + token; }
    if (body !== undefined) { headers['Content-Type'] = 'text/plain'; }
    var query = Object.keys(params).filter(function (name) { return params[name] !== null && params[name] !== ''; })
      .map(function (name) { return encodeURIComponent(name) + '=' + encodeURIComponent(params[name]); }).join('&');
    return fetch(window.outbox4jQuery('/api/actions/' + action + '?' + query),
      { method: 'POST', headers: headers, body: body })
      .then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (data) {
          return { status: response.status, data: data };
        });
      });
  }

  function refused(answer) {
    if (answer.status === 401) {
      say('The admin token is required (it is printed when the relay starts).', false);
    } else if (answer.status === 403) {
      say('The admin token is wrong.', false);
    } else if (answer.status === 409) {
      say('The count changed meanwhile (' + number(answer.data.count) + ' now, ' + number(answer.data.confirmed)
        + ' confirmed); nothing was changed. Look again and confirm again.', false);
    } else {
      say(answer.data.error || 'The relay refused the action (' + answer.status + ').', false);
    }
  }

  // Asks for the count, shows it, and applies the action with the confirmed count.
  // spec: { action, params, question(dry) -> text or null (nothing to do), nothing(dry) -> message, ok: label,
  //         body(dry) -> request body of the real request (or undefined), done(result) -> message }
  function perform(spec) {
    var params = Object.assign({}, spec.params, { dryRun: 'true' });
    return post(spec.action, params).then(function (dry) {
      if (dry.status !== 200) { refused(dry); return null; }
      var question = dry.data.count > 0 ? spec.question(dry.data) : null;
      if (question === null) { say(spec.nothing(dry.data), false); return null; }
      return confirmed(question, spec.ok).then(function (yes) {
        if (!yes) { say('Nothing was changed.', true); return null; }
        var real = Object.assign({}, spec.params, { confirm: String(dry.data.count) });
        return post(spec.action, real, spec.body ? spec.body(dry.data) : undefined).then(function (answer) {
          if (answer.status !== 200) { refused(answer); return null; }
          say(spec.done(answer.data) + (answer.data.auditError ? ' (' + answer.data.auditError + ')' : ''), true);
          return answer.data;
        });
      });
    }).catch(function () { say('The relay did not answer.', false); })
      .then(function (result) { refreshAll(); return result; });
  }

  // ------------------------------------------------------------------------------------------ entries of a group

  var groupsOffset = 0;
  var groupCount = 0;
  var lastGroups = null;
  // group id -> { cursors: [after of page 0, after of page 1, ...], page }
  var expanded = {};

  function entryActions(entry) {
    var td = document.createElement('td');
    td.appendChild(button('Requeue', 'requeue', function () {
      perform({ action: 'requeue-entry', params: { id: entry.id }, ok: 'Requeue',
        question: function () { return 'Requeue entry ' + entry.id + '? It goes back in line now (1 entry).'; },
        nothing: function () { return 'The entry is no longer waiting for an operator.'; },
        done: function () { return 'Requeued ' + entry.id; } });
    }));
    td.appendChild(button('Discard', 'discard danger', function () {
      perform({ action: 'discard-entry', params: { id: entry.id }, ok: 'Discard for good',
        question: function () { return 'Discard entry ' + entry.id + '? It is deleted for good and never sent (1 entry).'; },
        nothing: function () { return 'The entry is no longer waiting for an operator.'; },
        done: function () { return 'Discarded ' + entry.id; } });
    }));
    return td;
  }

  function drawEntries(container, groupId, state, data) {
    clear(container);
    var table = document.createElement('table');
    table.className = 'entries';
    var head = document.createElement('tr');
    ['id', 'key', 'attempts', 'reason', 'last error'].concat(data.showPayloads ? ['payload'] : []).concat([''])
      .forEach(function (name) { var th = document.createElement('th'); th.textContent = name; head.appendChild(th); });
    var thead = document.createElement('thead'); thead.appendChild(head); table.appendChild(thead);
    var body = document.createElement('tbody');
    (data.entries || []).forEach(function (entry) {
      var row = document.createElement('tr');
      row.className = 'entry';
      row.setAttribute('data-id', entry.id);
      row.setAttribute('data-destination', entry.destination);
      cell(row, entry.id, 'id');
      cell(row, entry.key);
      cell(row, entry.attempts);
      cell(row, entry.reason, 'error');
      cell(row, entry.lastError !== null && entry.lastError === entry.reason ? '(same as reason)' : entry.lastError,
        'error');
      if (data.showPayloads) { cell(row, entry.payload, 'payload'); }
      row.appendChild(entryActions(entry));
      body.appendChild(row);
    });
    table.appendChild(body);
    container.appendChild(table);
    var shown = (data.entries || []).length;
    var first = state.page * ENTRIES_PAGE;
    var pager = document.createElement('div');
    pager.className = 'pager entries-pager';
    var previous = button('Previous', 'previous', function () {
      state.page = Math.max(0, state.page - 1); refreshEntries(groupId, container);
    });
    previous.disabled = state.page === 0;
    var range = document.createElement('span');
    range.className = 'range';
    range.textContent = shown === 0 ? 'none left' : (first + 1) + '–' + (first + shown) + ' of ' + number(data.total);
    var next = button('Next', 'next', function () {
      state.cursors[state.page + 1] = data.entries[data.entries.length - 1].sequence;
      state.page += 1;
      refreshEntries(groupId, container);
    });
    next.disabled = !data.more;
    pager.appendChild(previous); pager.appendChild(range); pager.appendChild(next);
    container.appendChild(pager);
  }

  function refreshEntries(groupId, container) {
    var state = expanded[groupId];
    var after = state.cursors[state.page];
    var url = '/api/quarantined?group=' + encodeURIComponent(groupId) + '&limit=' + ENTRIES_PAGE
      + (after === null || after === undefined ? '' : '&after=' + after);
    return fetch(window.outbox4jQuery(url), { cache: 'no-store' }).then(function (response) { return response.json(); })
      .then(function (data) {
        if (expanded[groupId] !== state) { return; }
        if ((data.entries || []).length === 0 && state.page > 0) {
          state.page -= 1; return refreshEntries(groupId, container);
        }
        var drawn = JSON.stringify(data) + '@' + state.page;
        if (drawn === state.drawn && container.firstChild) { return; } // unchanged: keep the rows under the pointer
        state.drawn = drawn;
        drawEntries(container, groupId, state, data);
      })
      .catch(function () { /* the status badge already says the relay is unreachable */ });
  }

  // ------------------------------------------------------------------------------------------ groups

  function capitalized(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

  function groupName(group) { return group.destination + ' / ' + group.kind + ' / ' + group.pattern; }

  function groupAction(group, requeue) {
    perform({
      action: requeue ? 'requeue-group' : 'discard-group', params: { group: group.id },
      ok: requeue ? 'Requeue ' + plural(group.count, 'entry', 'entries') : 'Discard for good',
      question: function (dry) {
        return (requeue ? 'Requeue ' : 'Discard ') + plural(dry.count, 'entry', 'entries') + ' of group '
          + groupName(group) + '? ' + (requeue ? 'They go back in line now.' : 'They are deleted for good and never sent.')
          + ' Entries that failed this way after this count are left alone.';
      },
      nothing: function () { return 'No entry is in this group any more.'; },
      body: function (dry) { return dry.ids.join('\n'); },
      done: function (result) {
        return (requeue ? 'Requeued ' : 'Discarded ') + plural(result.changed, 'entry', 'entries')
          + (result.left > 0 ? ' (' + number(result.left) + ' of the ' + number(result.confirmed)
            + ' confirmed had left the group meanwhile)' : '');
      }
    });
  }

  function drawGroups(data) {
    var body = document.querySelector('#groups-table tbody');
    clear(body);
    var groups = data.groups || [];
    groupCount = data.groupCount || 0;
    groups.forEach(function (group) {
      var row = document.createElement('tr');
      row.className = 'group';
      row.setAttribute('data-group', group.id);
      row.setAttribute('data-count', group.count);
      cell(row, number(group.count), 'count');
      cell(row, group.destination, 'destination');
      cell(row, group.kind, 'kind');
      cell(row, group.pattern, 'error pattern');
      cell(row, group.example, 'error example');
      var actions = document.createElement('td');
      var open = !!expanded[group.id];
      actions.appendChild(button(open ? 'Hide entries' : 'Show entries', 'expand', function () {
        if (expanded[group.id]) { delete expanded[group.id]; } else { expanded[group.id] = { cursors: [null], page: 0 }; }
        refreshGroups();
      }));
      actions.appendChild(button('Requeue all', 'requeue-group', function () { groupAction(group, true); }));
      actions.appendChild(button('Discard all', 'discard-group danger', function () { groupAction(group, false); }));
      row.appendChild(actions);
      body.appendChild(row);
      if (open) {
        expanded[group.id].drawn = null;
        var detail = document.createElement('tr');
        detail.className = 'group-entries';
        detail.setAttribute('data-group', group.id);
        var td = document.createElement('td');
        td.colSpan = 6;
        detail.appendChild(td);
        body.appendChild(detail);
        refreshEntries(group.id, td);
      }
    });
    var total = data.total || 0;
    byId('quarantine-summary').textContent = total === 0 ? ''
      : plural(total, 'entry waits', 'entries wait') + ' for an operator, in ' + plural(groupCount, 'group', 'groups')
        + (data.complete ? '' : ' (the oldest ' + number(data.grouped) + ' are grouped; act on them and the rest come up)');
    byId('groups-table').hidden = groups.length === 0;
    byId('quarantine-empty').hidden = total > 0;
    var pager = byId('groups-pager');
    pager.hidden = groupCount <= GROUPS_PAGE;
    pager.querySelector('.range').textContent = 'groups ' + (groupsOffset + 1) + '–' + (groupsOffset + groups.length)
      + ' of ' + number(groupCount);
    pager.querySelector('.previous').disabled = groupsOffset === 0;
    pager.querySelector('.next').disabled = groupsOffset + GROUPS_PAGE >= groupCount;
  }

  byId('groups-pager').querySelector('.previous').addEventListener('click', function () {
    groupsOffset = Math.max(0, groupsOffset - GROUPS_PAGE); refreshGroups();
  });
  byId('groups-pager').querySelector('.next').addEventListener('click', function () {
    groupsOffset += GROUPS_PAGE; refreshGroups();
  });

  function refreshGroups() {
    return fetch(window.outbox4jQuery('/api/quarantine/groups?offset=' + groupsOffset + '&limit=' + GROUPS_PAGE),
      { cache: 'no-store' })
      .then(function (response) { return response.json(); })
      .then(function (data) {
        if ((data.groups || []).length === 0 && groupsOffset > 0) {
          groupsOffset = Math.max(0, groupsOffset - GROUPS_PAGE); return refreshGroups();
        }
        var drawn = JSON.stringify(data) + '@' + Object.keys(expanded).sort().join(',');
        if (drawn !== lastGroups) {
          lastGroups = drawn;
          drawGroups(data);
        } else {
          Object.keys(expanded).forEach(function (id) {
            var td = document.querySelector('tr.group-entries[data-group="' + id + '"] td');
            if (td) { refreshEntries(id, td); }
          });
        }
      })
      .catch(function () { /* the status badge already says the relay is unreachable */ });
  }

  // ------------------------------------------------------------------------------------------ destinations

  function field(id) { return byId(id).value.trim(); }

  function waitingTarget(dry) { return dry.target; }

  byId('op-pause').addEventListener('click', function () {
    var destination = field('op-destination');
    perform({ action: 'pause', params: { destination: destination, reason: field('op-reason') }, ok: 'Pause',
      question: function (dry) {
        return 'Pause destination \'' + destination + '\' for every relay? Its ' + plural(dry.waiting, 'waiting entry is',
          'waiting entries are') + ' held back (no attempt counted) until it is resumed.';
      },
      nothing: function () { return 'Destination \'' + destination + '\' is already paused.'; },
      done: function () { return 'Paused destination \'' + destination + '\''; } });
  });

  function resume(destination) {
    perform({ action: 'resume', params: { destination: destination }, ok: 'Resume',
      question: function (dry) {
        return 'Resume destination \'' + destination + '\'? Its ' + plural(dry.waiting, 'waiting entry is',
          'waiting entries are') + ' sent again within a few seconds.';
      },
      nothing: function () { return 'Destination \'' + destination + '\' is not paused by an operator.'; },
      done: function () { return 'Resumed destination \'' + destination + '\''; } });
  }
  byId('op-resume').addEventListener('click', function () { resume(field('op-destination')); });

  function waitingAction(park) {
    var params = { destination: field('op-destination'), key: field('op-key') };
    perform({ action: park ? 'park-waiting' : 'discard-waiting', params: params,
      ok: park ? 'Park' : 'Discard for good',
      question: function (dry) {
        return (park ? 'Park the ' : 'Discard the ') + plural(dry.count, 'waiting entry', 'waiting entries')
          + waitingTarget(dry).replace(/^waiting entries/, '') + '? ' + (park
          ? 'They are no longer sent, keep their order and wait for an operator.'
          : 'They are deleted for good and never sent.');
      },
      nothing: function (dry) { return 'No ' + (dry.target || 'waiting entries') + ' (pending, not in flight).'; },
      done: function (result) {
        // fewer than confirmed: the relay's result says how many and what became of the rest
        if (result.changed < result.confirmed && result.result) { return capitalized(result.result) + '.'; }
        return (park ? 'Parked ' : 'Discarded ') + plural(result.changed, 'waiting entry', 'waiting entries');
      } });
  }
  byId('op-park').addEventListener('click', function () { waitingAction(true); });
  byId('op-discard-waiting').addEventListener('click', function () { waitingAction(false); });

  function refreshPauses() {
    return fetch(window.outbox4jQuery('/api/pauses'), { cache: 'no-store' })
      .then(function (response) { return response.json(); })
      .then(function (data) {
        var body = document.querySelector('#pauses-table tbody');
        clear(body);
        (data.pauses || []).forEach(function (pause) {
          var row = document.createElement('tr');
          row.setAttribute('data-paused', pause.destination);
          cell(row, pause.destination, 'destination');
          cell(row, time(pause.pausedAt));
          cell(row, pause.pausedBy);
          cell(row, pause.reason || '–', 'error');
          var td = document.createElement('td');
          td.appendChild(button('Resume', 'resume', function () { resume(pause.destination); }));
          row.appendChild(td);
          body.appendChild(row);
        });
        byId('pauses-table').hidden = (data.pauses || []).length === 0;
      })
      .catch(function () { /* the status badge already says the relay is unreachable */ });
  }

  // ------------------------------------------------------------------------------------------ audit log

  function refreshAudit() {
    return fetch(window.outbox4jQuery('/api/audit?limit=20'), { cache: 'no-store' })
      .then(function (response) { return response.json(); })
      .then(function (data) {
        var body = document.querySelector('#audit-table tbody');
        clear(body);
        (data.actions || []).forEach(function (action) {
          var row = document.createElement('tr');
          row.className = 'audit';
          cell(row, time(action.at));
          cell(row, action.actor, 'actor');
          cell(row, action.action, 'action');
          cell(row, number(action.entries), 'count');
          cell(row, action.target, 'error');
          cell(row, action.detail || '–', 'error');
          body.appendChild(row);
        });
        byId('audit-table').hidden = (data.actions || []).length === 0;
        byId('audit-empty').hidden = (data.actions || []).length > 0;
      })
      .catch(function () { /* the status badge already says the relay is unreachable */ });
  }

  function refreshAll() {
    return Promise.all([refreshGroups(), refreshPauses(), refreshAudit()]);
  }

  refreshAll();
  setInterval(refreshGroups, 3000);
  setInterval(refreshPauses, 3000);
  setInterval(refreshAudit, 5000);
}());
