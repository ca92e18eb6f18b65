package io.github.delayqueue.bench;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The raw loops send the library's statements: every statement of {@link RawSql} equals the library's of the same
 * name, and its lists of placeholders are the library's. A change of the library's SQL fails here until it is
 * copied into {@link RawSql}, so the ceiling never measures yesterday's statements.
 */
class RawSqlTest {

    @Test
    void everyRawStatementIsTheLibrarysOwn() throws IllegalAccessException {
        List<Field> statements = Arrays.stream(RawSql.class.getDeclaredFields())
            .filter(field -> Modifier.isStatic(field.getModifiers()) && field.getType() == String.class
                    && !Modifier.isPrivate(field.getModifiers()))
            .toList();
        assertThat(statements).extracting(Field::getName)
            .contains("INSERT", "SELECT_DUE_FOR_CLAIM", "SELECT_IDS_FOR_CLAIM", "MARK_RUNNING", "MARK_SUCCEEDED");
        for (Field statement : statements) {
            assertThat(statement.get(null)).as("RawSql.%s", statement.getName())
                .isEqualTo(LibrarySql.statement(statement.getName()));
        }
    }

    @Test
    void placeholdersAreTheLibrarys() {
        for (int count : new int[] { 1, 2, 500 }) {
            assertThat(RawSql.placeholders(count)).isEqualTo(LibrarySql.placeholders(count));
            assertThat(RawSql.pairPlaceholders(count)).isEqualTo(LibrarySql.pairPlaceholders(count));
            assertThat(RawSql.valuesRows(count)).isEqualTo(LibrarySql.valuesRows(count));
        }
    }
}
