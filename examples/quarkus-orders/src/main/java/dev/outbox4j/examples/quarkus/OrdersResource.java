package dev.outbox4j.examples.quarkus;

import jakarta.inject.Inject;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;

/** {@code POST /orders?totalCents=N}: places an order; 201 with the order, 400 for a total that is not positive. */
@Path("/orders")
public class OrdersResource {
  @Inject OrderService orders;

  /**
   * @param totalCents the order's total
   * @return 201 with the order placed
   */
  @POST
  public Response place(@QueryParam("totalCents") long totalCents) {
    if (totalCents <= 0) {
      return Response.status(Response.Status.BAD_REQUEST).entity("totalCents must be positive").build();
    }
    return Response.status(Response.Status.CREATED).entity(orders.place(totalCents)).build();
  }
}
