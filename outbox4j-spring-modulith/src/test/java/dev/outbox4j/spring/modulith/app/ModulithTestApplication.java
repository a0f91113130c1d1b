package dev.outbox4j.spring.modulith.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A Spring Modulith application whose {@code @Externalized} events outbox4j carries. */
@SpringBootApplication
public class ModulithTestApplication {}
