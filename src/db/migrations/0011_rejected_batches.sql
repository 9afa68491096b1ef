ALTER TABLE "batches" ADD COLUMN "error_code" text;--> statement-breakpoint
ALTER TABLE "batches" ADD COLUMN "error_message" text;--> statement-breakpoint
ALTER TABLE "batches" ADD COLUMN "file_bytes" bigint;