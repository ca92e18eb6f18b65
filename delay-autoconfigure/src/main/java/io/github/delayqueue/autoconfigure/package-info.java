/**
 * Spring Boot auto-configuration of the delay queue: properties, beans, and the {@code @DelayedHandler} scan.
 */
@NullMarked
package io.github.delayqueue.autoconfigure;

import org.jspecify.annotations.NullMarked;
