CREATE TABLE "intake_starts" (
	"merchant_id" uuid NOT NULL,
	"file_name" text NOT NULL,
	"file_bytes" bigint NOT NULL,
	"file_modified_at" timestamp with time zone NOT NULL,
	"starts" integer NOT NULL,
	"first_started_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "intake_starts_merchant_id_file_name_pk" PRIMARY KEY("merchant_id","file_name")
);
