ALTER TABLE "orders" DROP CONSTRAINT "orders_merchant_id_merchants_id_fk";
--> statement-breakpoint
ALTER TABLE "orders" DROP CONSTRAINT "orders_batch_id_batches_id_fk";
