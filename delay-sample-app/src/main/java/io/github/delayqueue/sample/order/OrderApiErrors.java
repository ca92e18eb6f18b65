package io.github.delayqueue.sample.order;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.DatabindException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.validation.FieldError;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Answers every error as an RFC 9457 problem ({@code application/problem+json}). A bad request names the field at
 * fault in {@code field}, and all faulty fields with their messages in {@code errors}.
 */
@RestControllerAdvice
class OrderApiErrors extends ResponseEntityExceptionHandler {

    private static final Map<String, String> EXPECTED = Map.of("amount", "must be a number such as 12.50",
            "cancelAfter", "must be an ISO-8601 duration such as PT30M");

    @ExceptionHandler
    ProblemDetail orderNotFound(OrderNotFoundException ex) {
        return problem(HttpStatus.NOT_FOUND, "Order not found", ex.getMessage());
    }

    @ExceptionHandler
    ProblemDetail orderCancelled(OrderCancelledException ex) {
        ProblemDetail problem = problem(HttpStatus.CONFLICT, "Order cancelled", ex.getMessage());
        problem.setProperty("order", ex.order());
        return problem;
    }

    @ExceptionHandler
    ProblemDetail argumentTypeMismatch(MethodArgumentTypeMismatchException ex) {
        String message = "must be a number, not '" + ex.getValue() + "'";
        return badRequest(Map.of(ex.getName(), message));
    }

    @Override
    protected @Nullable ResponseEntity<Object> handleMethodArgumentNotValid(MethodArgumentNotValidException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        Map<String, String> errors = ex.getBindingResult()
            .getFieldErrors()
            .stream()
            .collect(Collectors.toMap(FieldError::getField, OrderApiErrors::message, (a, b) -> a + "; " + b,
                    LinkedHashMap::new));
        return ResponseEntity.badRequest().body(badRequest(errors));
    }

    @Override
    protected @Nullable ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        Throwable cause = ex.getCause();
        String mistyped = cause instanceof DatabindException mapping ? path(mapping) : null;
        if (mistyped != null) {
            return ResponseEntity.badRequest()
                .body(badRequest(Map.of(mistyped, EXPECTED.getOrDefault(mistyped, "has a value of the wrong type"))));
        }
        if (cause instanceof StreamReadException syntax) {
            String broken = fieldBeingRead(syntax);
            if (broken != null) {
                TokenStreamLocation at = syntax.getLocation();
                String message = "is not valid JSON" + (at == null ? ""
                        : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")");
                return ResponseEntity.badRequest().body(badRequest(Map.of(broken, message)));
            }
        }
        return ResponseEntity.badRequest()
            .body(problem(HttpStatus.BAD_REQUEST, "Malformed request body",
                    "The request body must be JSON like {\"amount\": 12.50, \"cancelAfter\": \"PT30M\"}"));
    }

    /** The property path of a value that could not be mapped, such as {@code cancelAfter}. */
    private static @Nullable String path(DatabindException ex) {
        String path = ex.getPath()
            .stream()
            .map(reference -> reference.getPropertyName() != null ? reference.getPropertyName()
                    : "[" + reference.getIndex() + "]")
            .collect(Collectors.joining("."));
        return path.isEmpty() ? null : path;
    }

    /** The field whose value the parser was reading when the JSON broke off, if it was inside an object. */
    private static @Nullable String fieldBeingRead(StreamReadException ex) {
        JsonParser parser = ex.processor();
        TokenStreamContext context = parser != null ? parser.streamReadContext() : null;
        return context != null && context.inObject() ? context.currentName() : null;
    }

    private static String message(FieldError error) {
        String message = error.getDefaultMessage();
        return message != null ? message : "is invalid";
    }

    private static ProblemDetail badRequest(Map<String, String> errors) {
        String detail = errors.entrySet()
            .stream()
            .map(error -> error.getKey() + " " + error.getValue())
            .collect(Collectors.joining("; "));
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "Invalid request", detail);
        problem.setProperty("field", errors.keySet().iterator().next());
        problem.setProperty("errors", errors);
        return problem;
    }

    private static ProblemDetail problem(HttpStatus status, String title, @Nullable String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        return problem;
    }
}
