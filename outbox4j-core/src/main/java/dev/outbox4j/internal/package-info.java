/** Not API: implementation details that may change in any release. */
@NullMarked
package dev.outbox4j.internal;

import org.jspecify.annotations.NullMarked;
