CREATE TABLE "cards" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"token" text NOT NULL,
	"merchant_id" uuid NOT NULL,
	"fingerprint" text NOT NULL,
	"sealed" text NOT NULL,
	"key_id" text NOT NULL,
	"bin" text NOT NULL,
	"last4" text NOT NULL,
	"exp_month" smallint NOT NULL,
	"exp_year" smallint NOT NULL,
	"brand" text,
	"test" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cards_token_unique" UNIQUE("token")
);
--> statement-breakpoint
ALTER TABLE "cards" ADD CONSTRAINT "cards_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cards_merchant_fingerprint_uq" ON "cards" USING btree ("merchant_id","fingerprint");--> statement-breakpoint
CREATE INDEX "cards_key_id_idx" ON "cards" USING btree ("key_id","id");