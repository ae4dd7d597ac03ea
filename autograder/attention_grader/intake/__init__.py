"""A submission on its way in: the exchange, who handed in and when, files made safe, due dates and late penalties."""
